// Checks of the network the request comes from (docs/detection.md, "Networks"): a VPN, proxy, Tor or datacenter exit,
// the IP's country, and the browser's clock against the IP's place.
import type { SignalSet } from "../../signals/index.js";
import { defineCheck } from "../define.js";

type Signals = { signals: Pick<SignalSet, "geolocation" | "forwarding"> };

/** A VPN provider's network. */
export const isVpn = ({ signals }: Signals): boolean => signals.geolocation?.network === "vpn";
/** A proxy provider's network, or a forward proxy that announced itself in the headers. */
export const isProxy = ({ signals }: Signals): boolean => signals.geolocation?.network === "proxy" || signals.forwarding.proxied;
export const isTor = ({ signals }: Signals): boolean => signals.geolocation?.tor === true || signals.geolocation?.network === "tor";
export const isHosting = ({ signals }: Signals): boolean => signals.geolocation?.network === "hosting";

/**
 * A VPN, proxy, Tor or hosting exit, as the evaluation's geolocation `security` says (pipeline/decide.ts): its country is
 * the exit's, not the user's. Undefined without a geolocation.
 */
export function isExit(r: Signals): boolean | undefined {
  if (!r.signals.geolocation) return undefined;
  return isVpn(r) || isProxy(r) || isTor(r) || isHosting(r);
}

export const checks = [
  defineCheck({
    name: "ip_is_vpn",
    type: "boolean",
    doc: "The IP belongs to a VPN provider's network (server/data/networks.txt.gz or NETWORK_LIST).",
    reason: "vpn_detected",
    // A browser time zone far from the IP is not one: a traveller's laptop keeps its home zone (that is
    // `timezone_mismatch`, a weak check of its own).
    compute: (c) => isVpn(c),
  }),
  defineCheck({
    name: "ip_is_proxy",
    type: "boolean",
    doc: "The IP belongs to a proxy provider's network, or a forward proxy announced itself in the headers.",
    reason: "proxy_detected",
    compute: (c) => isProxy(c),
  }),
  defineCheck({
    name: "ip_is_tor",
    type: "boolean",
    doc: "The IP is a Tor exit (the shipped snapshot or TOR_EXIT_LIST).",
    reason: "tor_detected",
    compute: (c) => isTor(c),
  }),
  defineCheck({
    name: "ip_is_hosting",
    type: "boolean",
    doc: "The IP belongs to a cloud or dedicated-server provider.",
    reason: "datacenter_ip",
    compute: (c) => isHosting(c),
  }),
  defineCheck({
    name: "ip_is_anonymous",
    type: "boolean",
    doc: "A VPN, a proxy network or Tor: networks that hide who is behind them (a proxy that announces itself is not one).",
    reason: "anonymous_network",
    // Networks that hide who is behind them. A proxy that announces itself in the headers is transparent (it is
    // `ip_is_proxy`), and a far time zone is a traveller as often as a VPN (`timezone_mismatch`).
    compute: (c) =>
      c.signals.geolocation?.network === "vpn" ||
      c.signals.geolocation?.network === "proxy" ||
      c.signals.geolocation?.network === "tor" ||
      c.signals.geolocation?.tor === true,
  }),
  defineCheck({
    name: "ip_country",
    type: "string",
    doc: "The IP's country (ISO 3166-1 alpha-2); null when unknown.",
    reason: "ip_country",
    compute: (c) => c.signals.geolocation?.country_code ?? null,
  }),
  defineCheck({
    name: "timezone_mismatch",
    type: "boolean",
    doc: "The browser's time zone is more than 3.5 hours from the solar time of the IP's longitude (a traveller as often as a proxy: weak).",
    reason: "timezone_mismatch",
    compute: (c) => c.signals.timezone.mismatch,
  }),
  defineCheck({
    name: "timezone_in_ip_country",
    type: "boolean",
    doc: "The browser's time zone is one of the zones of the IP's country (CLDR's list, as Intl carries it): a phone takes the zone of the network it is on. Null when the browser names no place or the IP has no country.",
    reason: { false: "timezone_outside_ip_country" },
    compute: (c) => c.signals.timezone.local ?? null,
  }),
  // A machine's default clock, not a person's: servers, containers and phone emulators start on UTC, and a person's
  // computer or phone is set to local time. The privacy browsers that report UTC for everyone (Tor Browser, Mullvad
  // Browser, Firefox with resistFingerprinting) are Gecko; no Chromium browser hides its zone (Brave neither).
  defineCheck({
    name: "server_timezone",
    type: "boolean",
    doc: "A Chromium browser (by its user agent) set to UTC or an Etc/ offset: the default of a server, a container or an emulator, where headless browsers and stuffing rigs run (a person's computer shows local time; the privacy browsers reporting UTC are Firefox's). Null when the browser sends no zone Intl knows, or its user agent names no engine.",
    reason: "server_timezone",
    compute: (c) => {
      const { browser, placeless } = c.signals.timezone;
      const engine = c.signals.userAgent.family?.engine;
      if (!browser || placeless === undefined || !engine || engine === "other") return null;
      return placeless && engine === "blink";
    },
  }),
] as const;
