// Where codes may go ("Code destinations"; docs/security.md): an email is one RFC 5322 addr-spec — no list, no display name,
// no comment, no CR/LF — and a phone is a valid E.164 number. Checked at every entry that carries contacts (client
// and server evaluations, user updates: 400 naming the field) and again before a code is sent. An address is shaped
// in one linear pass before the RFC 5322 parser sees it (docs/security.md "Bounded input"): that parser backtracks,
// and 300 characters of nested comments cost it a quarter of a second.
import { createHash } from "node:crypto";
import emailAddresses from "email-addresses";
import { isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { BoundedMap } from "../caches.js";
import { badRequest } from "../errors.js";
import { accountEmailKey } from "../pipeline/account-email.js";

// The RFC 5322 parser was 3 % of an evaluation's CPU in the bench's profile. ASCII addresses no longer reach it
// (parseEmail); a returning user sends the same UTF-8 address.
const emails = new BoundedMap<string, string | null>(10_000);

/** The longest address a mail path carries (RFC 5321: 256 octets less the angle brackets), and its local part's. */
export const EMAIL_MAX_LENGTH = 254;
export const EMAIL_LOCAL_MAX_LENGTH = 64;

/**
 * What no dot-atom holds: whitespace and control characters, and RFC 5322's specials — the parentheses of comments,
 * the quotes and backslash of quoted strings, the brackets of domain literals, the separators of lists, groups and
 * display names, and a second @. One character class tested once: no backtracking.
 */
const NOT_IN_DOT_ATOM = /[\s\p{Cc}"(),:;<>@[\\\]]/u;

const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** A dot-atom: atoms joined by single dots, none at either end. */
const isDotAtom = (s: string) => s !== "" && !NOT_IN_DOT_ATOM.test(s) && s[0] !== "." && s.at(-1) !== "." && !s.includes("..");

/**
 * Whether `raw` has the shape of a dot-atom address (local@domain, each a dot-atom, within the lengths), checked in
 * one pass over at most EMAIL_MAX_LENGTH characters. Everything the parser could backtrack on — comments, quoted local
 * parts, folding whitespace, runs of dots — fails here, so the parser only ever reads a short dot-atom address.
 */
export function hasAddressShape(raw: string): boolean {
  if (raw.length > EMAIL_MAX_LENGTH) return false;
  const at = raw.indexOf("@");
  if (at <= 0 || at > EMAIL_LOCAL_MAX_LENGTH) return false;
  return isDotAtom(raw.slice(0, at)) && isDotAtom(raw.slice(at + 1));
}

/**
 * The address if `raw` is exactly one addr-spec in dot-atom form, else undefined. Its shape is checked first
 * (hasAddressShape); then the parser reads RFC 5322 (UTF-8 allowed, RFC 6532), and anything it had to drop or rebuild
 * makes the address differ from the input and is refused, and so are dotless domains. Only the parser's answers are
 * remembered: a refused shape costs less than the cache would.
 */
export function parseEmail(raw: string): string | undefined {
  if (!hasAddressShape(raw)) return undefined;
  // Printable ASCII in a dot-atom shape is all atext (the shape refused every special), so the parser's answer is
  // known: the address itself when its domain has a dot (rejectTLD), else none. The parser reads the rest: UTF-8.
  if (PRINTABLE_ASCII.test(raw)) return raw.includes(".", raw.indexOf("@")) ? raw : undefined;
  let known = emails.get(raw);
  if (known === undefined) {
    known = parseEmailUncached(raw) ?? null;
    emails.set(raw, known);
  }
  return known ?? undefined;
}

function parseEmailUncached(raw: string): string | undefined {
  const parsed = emailAddresses.parseOneAddress({ input: raw, rfc6532: true, rejectTLD: true });
  if (parsed?.type !== "mailbox") return undefined;
  if (parsed.address !== raw || parsed.name !== null || parsed.domain.startsWith("[")) return undefined;
  return parsed.address;
}

/** The number if `raw` is a valid phone number written in E.164 (+ and digits only), else undefined. */
export function parsePhone(raw: string): string | undefined {
  const n = parsePhoneNumberFromString(raw);
  return n?.isValid() && n.number === raw ? n.number : undefined;
}

/** The ISO 3166 alpha-2 country of a phone number (e.g. FR for +33…), or undefined for a non-geographic one (+800…). */
export function phoneCountry(phone: string): string | undefined {
  return parsePhoneNumberFromString(phone)?.country;
}

/**
 * An environment's sms_countries as stored: upper case, each once, in the order given; or the position of the first
 * that is no ISO 3166 alpha-2 country with phone numbers (libphonenumber-js's list), for the caller to name.
 */
export function smsCountries(codes: readonly string[]): { countries: string[] } | { invalid: number } {
  const countries: string[] = [];
  for (const [i, raw] of codes.entries()) {
    const code = raw.trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(code) || !isSupportedCountry(code)) return { invalid: i };
    if (!countries.includes(code)) countries.push(code);
  }
  return { countries };
}

/** Refuses an email or phone that could not be a single code destination, naming the field (null clears: allowed). */
export function checkContacts(fields: { email?: string | null; phone?: string | null }): void {
  if (typeof fields.email === "string" && !parseEmail(fields.email))
    throw badRequest(
      `email must be a single address (local@domain) of at most ${EMAIL_MAX_LENGTH} characters: no list, name, comment, quotes or spaces`,
      "email",
    );
  if (typeof fields.phone === "string" && !parsePhone(fields.phone))
    throw badRequest("phone must be a valid number in international format, e.g. +33612345678", "phone");
}

/**
 * The address less its "+tag" sub-address, on every domain: Postfix, Exchange Online, Google Workspace and Fastmail
 * deliver "name+tag" to "name" on their customers' own domains. For a send cap only: two mailboxes told apart by a
 * "+" then share one budget, where keying them apart gave one inbox a budget per tag. Accounts keep the "+" outside
 * the webmail providers (pipeline/account-email.ts): there, merging would join two accounts.
 */
function withoutSubaddress(address: string): string {
  const at = address.lastIndexOf("@");
  const plus = address.indexOf("+");
  return plus > 0 && plus < at ? address.slice(0, plus) + address.slice(at) : address;
}

/**
 * A stable key for one destination, for the send caps (docs/security.md, "Sends capped where pumping happens"): one
 * inbox is one recipient, so the address is keyed as accounts are (pipeline/account-email.ts: its domain as the mailer
 * delivers to it, "ｇｍａｉｌ.com" being gmail.com; case, and the spellings a webmail
 * provider delivers to one inbox — Gmail's dots, "+tag" sub-addresses), and a "+tag" goes on every domain
 * (withoutSubaddress); hashed so that the shared counters hold no address in clear.
 */
export function destinationKey(channel: "email" | "text", to: string): string {
  const normal = channel === "email" ? withoutSubaddress(accountEmailKey(to)) : to;
  return createHash("sha256").update(`${channel}:${normal}`).digest("base64url").slice(0, 22);
}
