// Checks of what the user was let in with before (docs/detection.md, "Trusted history"): "is new X" for an address, a
// network, a country, a provider, a time zone, a language. Each reads the familiarity ledger (store/familiarity.ts):
// a dimension is what a trusted evaluation records there (recorded when the backend vouched for it, its challenge was
// passed, or a device the user signed in on let it in: an attacker's attempts never make anything familiar), a question
// is what a check asks of it (facts/familiarity.ts). A new "is new X" check is a dimension, a question and a check here.
import { dimension, type Familiar, familiarity, familiarityOf } from "../../facts/familiarity.js";
import { perIpKey } from "../../geo/ip.js";
import { providerAsn } from "../../signals/network.js";
import { defineCheck } from "../define.js";
import { isExit } from "./network.js";

const text = (n: number | undefined) => (n === undefined ? undefined : String(n));

// ---- dimensions: what a trusted evaluation records --------------------------------------------------------------------
/**
 * The address as every per-IP count keys it (geo/ip.ts, perIpKey): an IPv6 client's /64, whose interface id privacy
 * extensions redraw daily or per connection, so a known household is not a new address every day (migration 37).
 */
const ip = dimension("ip", (r) => (r.input.ip ? perIpKey(r.input.ip) : undefined));
/** The IP's /24 or /48 (signals/network.ts). */
const network = dimension("network", (r) => r.signals.network?.prefix);
/** The ASN of a network its users own (an ISP, a carrier, a company): never a cloud's, a VPN's or a proxy's. */
const networkAsn = dimension("network_asn", (r) => text(r.signals.network?.asn));
/** The ASN of a VPN, proxy, Tor or hosting exit. */
const exitAsn = dimension("provider_asn", (r) => (isExit(r) ? text(r.signals.geolocation?.asn) : undefined));
/** The IP's country, on an ordinary network only: an exit's country is where the exit is, not the user. */
const country = dimension("country", (r) => (isExit(r) === false ? r.signals.geolocation?.country_code : undefined));
/** The browser's time zone when it names a place (not UTC nor an Etc/ offset: signals/timezone.ts). */
const timezone = dimension("timezone", (r) => r.signals.timezone.zone);
/** navigator.language, canonical (signals/language.ts). */
const language = dimension("language", (r) => r.signals.language);
/** The browser family of the parsed user agent (Chrome, Firefox, Safari, Edge, …): a phone's and a computer's alike. */
const browserFamily = dimension("browser_family", (r) => r.identity.deviceInfo.browser?.replace(/^Mobile /, ""));

// ---- questions: what the checks ask of the ledger ---------------------------------------------------------------------
/** This address, asked with a network (an IP the store can place in one). */
const knownIp = familiarity("ip", [ip], (r) => (r.input.ip && r.signals.network ? [[ip, perIpKey(r.input.ip)]] : undefined));
/** This /24 (/48), or the ASN of a network its users own. */
const knownNetwork = familiarity("network", [network, networkAsn], (r) =>
  r.input.ip && r.signals.network
    ? [
        [network, r.signals.network.prefix],
        [networkAsn, text(r.signals.network.asn)],
      ]
    : undefined,
);
/** This IP's country (whatever the network: the check leaves exits alone). */
const knownCountry = familiarity("country", [country], (r) => {
  const code = r.signals.geolocation?.country_code;
  return code ? [[country, code]] : undefined;
});
/** Through this cloud, VPN or proxy provider (its ASN as an exit's or as a network's own); asked on such networks only. */
const knownProvider = familiarity("provider", [exitAsn, networkAsn], (r) => {
  const asn = providerAsn(r.signals.geolocation);
  if (asn === undefined) return undefined;
  const value = String(Math.trunc(asn));
  return [
    [exitAsn, value],
    [networkAsn, value],
  ];
});
const knownTimezone = familiarityOf(timezone);
const knownLanguage = familiarityOf(language);
const knownBrowserFamily = familiarityOf(browserFamily);

/** New unless seen; null when the user has no value of the dimension on record (or it was not asked). */
const newTo = (f: Familiar | undefined): boolean | null => (f?.any ? !f.seen : null);

export const checks = [
  defineCheck({
    name: "is_new_ip",
    type: "boolean",
    doc: "An IP address (an IPv6 client's /64) the user was never let in from (trusted history: the backend vouched, a challenge was passed, or a device the user signed in on let it in); true without a user.",
    reason: "new_ip",
    needs: [knownIp],
    compute: (c) => (c.identity.user ? !(c.facts.ip?.seen ?? false) : true),
  }),
  defineCheck({
    name: "is_new_network",
    type: "boolean",
    doc: "A network the user was never let in from: its /24 (/48), or its ASN for networks that belong to their users (a carrier, an ISP, a company), so a phone hopping across its carrier's pool or a corporate gateway's second exit is not new. Null without an IP.",
    reason: "new_network",
    needs: [knownNetwork],
    compute: (c) => (!c.signals.network ? null : c.identity.user ? !(c.facts.network?.seen ?? false) : true),
  }),
  defineCheck({
    name: "is_new_country",
    type: "boolean",
    doc: "The IP's country is not among those the user was let in from on ordinary networks (null: none yet, no user or country, or this IP is a VPN, proxy, Tor or datacenter exit).",
    reason: "new_country",
    needs: [knownCountry],
    compute: (c) => {
      const g = c.signals.geolocation;
      // An exit of a VPN, a proxy, Tor or a datacenter is no country the user is in (those are their own checks).
      if (g?.tor === true || (g?.network !== undefined && ["vpn", "proxy", "tor", "hosting"].includes(g.network))) return null;
      return c.identity.user ? newTo(c.facts.country) : null;
    },
  }),
  defineCheck({
    name: "is_new_provider",
    type: "boolean",
    doc: "Through a cloud, VPN or proxy provider (its ASN) the user was never let in through; null on other networks. The second exit of a corporate gateway or of a VPN subscription is the same provider.",
    reason: "new_provider",
    needs: [knownProvider],
    compute: (c) => (c.facts.provider === undefined ? null : !c.facts.provider.seen),
  }),
  defineCheck({
    name: "is_new_timezone",
    type: "boolean",
    doc: "The browser's time zone is one no browser the user was let in from was set to; null for a user with no such evaluation yet, and for a browser naming no place (none, UTC or an Etc/ offset, as privacy browsers report). A VPN moves the exit, not the zone of the computer behind it.",
    reason: "new_timezone",
    needs: [knownTimezone],
    compute: (c) => newTo(c.facts.timezone),
  }),
  defineCheck({
    name: "is_new_language",
    type: "boolean",
    doc: "The browser is set to a language (navigator.language) no browser the user was let in from was set to; null for a user with no such evaluation yet, and for a browser that reports none. A phone abroad keeps its owner's.",
    reason: "new_language",
    needs: [knownLanguage],
    compute: (c) => newTo(c.facts.language),
  }),
  defineCheck({
    name: "is_new_browser_family",
    type: "boolean",
    doc: "The browser is of a family (Chrome, Firefox, Safari, Edge, … from its user agent) no browser the user was let in from was; null without a user, a parsed family, or any trusted evaluation with one.",
    reason: "new_browser_family",
    needs: [knownBrowserFamily],
    compute: (c) => newTo(c.facts.browser_family),
  }),
] as const;
