// Signal: the email's syntax, and whether its domain is disposable (maintained list) or a public webmail.
import { disposableEmailBlocklistSet } from "disposable-email-domains-js";
import type { SignalContext, SignalSet } from "./types.js";

const disposable = disposableEmailBlocklistSet();

/** Large public webmail providers: a real person's address, but no organisation behind it. */
const WEBMAIL = new Set(
  "gmail.com googlemail.com yahoo.com yahoo.co.uk yahoo.fr ymail.com outlook.com hotmail.com hotmail.co.uk hotmail.fr live.com msn.com icloud.com me.com mac.com aol.com proton.me protonmail.com pm.me gmx.com gmx.de gmx.net web.de mail.com yandex.ru yandex.com mail.ru zoho.com fastmail.com tutanota.com tuta.io qq.com 163.com 126.com naver.com orange.fr free.fr laposte.net libero.it t-online.de seznam.cz wp.pl o2.pl rediffmail.com".split(
    " ",
  ),
);

// Practical address syntax: one @, a dotted domain of letters/digits/hyphens with a 2+ letter TLD, no spaces.
const SYNTAX = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function checkEmail(address: string): NonNullable<SignalSet["email"]> {
  const trimmed = address.trim();
  const domain = (trimmed.split("@")[1] ?? "").toLowerCase();
  const local = trimmed.split("@")[0] ?? "";
  const invalid = !SYNTAX.test(trimmed) || local.startsWith(".") || local.endsWith(".") || local.includes("..");
  const isDisposable = domain !== "" && (disposable.has(domain) || disposable.has(domain.split(".").slice(-2).join(".")));
  return { address: trimmed.toLowerCase(), domain, invalid, disposable: isDisposable, webmail: WEBMAIL.has(domain) };
}

export function email({ input }: SignalContext): SignalSet["email"] {
  return input.email ? checkEmail(input.email) : undefined;
}
