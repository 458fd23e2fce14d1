// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// The network the request comes from (server/src/checks/families/network.ts): VPN, proxy, Tor, datacenter, country, the browser's clock.
import { describeChecks, IP } from "./harness.js";

const FIREFOX_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0";

describeChecks("network", [
  {
    check: "ip_is_vpn",
    set: { why: "a VPN provider's network", value: true, run: (h) => h.client("visit", { ip: IP.vpn }) },
    unset: [
      {
        why: "a residential IP with a matching time zone",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/London" }),
      },
      {
        why: "a traveller whose laptop keeps its home zone (Paris time from Tokyo) is not on a VPN",
        value: false,
        run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Europe/Paris" }),
      },
    ],
  },
  {
    check: "ip_is_proxy",
    set: [
      { why: "a proxy provider's network", value: true, run: (h) => h.client("visit", { ip: IP.proxy }) },
      {
        why: "a forward proxy that announces itself (X-Proxy-ID)",
        value: true,
        run: (h) => h.client("visit", { ip: IP.london, headers: { "x-proxy-id": "1738295" } }),
      },
    ],
    unset: [
      { why: "a residential IP, direct", value: false, run: (h) => h.client("visit", { ip: IP.london }) },
      {
        why: "a Via header, which load balancers add to all traffic",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, headers: { via: "1.1 google" } }),
      },
      {
        why: "a long forwarding chain (CDN, load balancer and router hops)",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, headers: { "x-forwarded-for": `${IP.london}, 198.51.100.7, 198.51.100.8` } }),
      },
    ],
  },
  {
    check: "ip_is_tor",
    set: { why: "a Tor exit node", value: true, run: (h) => h.client("visit", { ip: IP.tor }) },
    unset: { why: "a residential IP", value: false, run: (h) => h.client("visit", { ip: IP.london }) },
  },
  {
    check: "ip_is_hosting",
    set: { why: "a datacenter (AWS)", value: true, run: (h) => h.client("visit", { ip: IP.aws }) },
    unset: { why: "a residential IP", value: false, run: (h) => h.client("visit", { ip: IP.london }) },
  },
  {
    check: "ip_is_anonymous",
    set: [
      { why: "Tor", value: true, run: (h) => h.client("visit", { ip: IP.tor }) },
      { why: "a VPN", value: true, run: (h) => h.client("visit", { ip: IP.vpn }) },
      { why: "a proxy", value: true, run: (h) => h.client("visit", { ip: IP.proxy }) },
    ],
    unset: [
      { why: "a residential IP", value: false, run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/London" }) },
      { why: "a datacenter is not anonymising by itself", value: false, run: (h) => h.server("visit", { ip: IP.aws }) },
      {
        why: "a browser time zone far from the IP (a traveller) is not anonymising",
        value: false,
        run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Europe/Paris" }),
      },
      {
        why: "a proxy that announces itself in the headers is transparent, not anonymising",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, headers: { "x-proxy-id": "1738295" } }),
      },
    ],
  },
  {
    check: "ip_country",
    set: { why: "a Japanese IP", value: "JP", run: (h) => h.client("visit", { ip: IP.tokyo }) },
    unset: { why: "a private IP has no country", value: null, run: (h) => h.client("visit", { ip: h.ip() }) },
  },
  {
    check: "timezone_mismatch",
    set: {
      why: "Paris time from a Tokyo IP",
      value: true,
      run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Europe/Paris" }),
    },
    unset: [
      { why: "Tokyo time from a Tokyo IP", value: false, run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Asia/Tokyo" }) },
      {
        // fakeComponents carries Europe/Paris: the components' zone is used when the SDK sends no separate one.
        why: "the components' zone (Paris) from London",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, browser: h.browser() }),
      },
    ],
  },
  {
    check: "timezone_in_ip_country",
    set: [
      { why: "Tokyo time from a Tokyo IP", value: true, run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Asia/Tokyo" }) },
      {
        // An alias of a country's zone is the same zone (Firefox reports Asia/Kolkata, CLDR lists Asia/Calcutta).
        why: "São Paulo's zone under its old alias from a São Paulo IP",
        value: true,
        run: (h) => h.client("visit", { ip: IP.saoPaulo, timezone: "Brazil/East" }),
      },
    ],
    unset: [
      {
        // One solar hour from Tokyo, but Seoul's zone is not Japan's.
        why: "Seoul time from a Tokyo IP",
        value: false,
        run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Asia/Seoul" }),
      },
      { why: "Paris time from a London IP", value: false, run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/Paris" }) },
      { why: "UTC names no place: unknown (null)", value: null, run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Etc/UTC" }) },
      {
        why: "a private IP has no country: unknown (null)",
        value: null,
        run: (h) => h.client("visit", { ip: h.ip(), timezone: "Asia/Tokyo" }),
      },
    ],
  },
  {
    check: "server_timezone",
    set: [
      { why: "Chrome on Windows set to UTC", value: true, run: (h) => h.client("visit", { ip: IP.london, timezone: "UTC" }) },
      { why: "Chrome set to Etc/UTC (a container's)", value: true, run: (h) => h.client("visit", { ip: IP.aws, timezone: "Etc/UTC" }) },
    ],
    unset: [
      { why: "Chrome set to London's zone", value: false, run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/London" }) },
      {
        // resistFingerprinting, Tor Browser and Mullvad Browser report UTC for everyone.
        why: "Firefox set to UTC (a privacy browser)",
        value: false,
        run: (h) =>
          h.client("visit", {
            ip: IP.london,
            timezone: "UTC",
            browser: h.browser(FIREFOX_UA, { platform: "Win32", userAgentData: undefined }),
          }),
      },
      {
        why: "no zone sent: unknown (null)",
        value: null,
        run: (h) => h.client("visit", { ip: IP.london, browser: h.browser(undefined, { timezone: undefined }) }),
      },
      {
        why: "a zone Intl does not know: unknown (null)",
        value: null,
        run: (h) => h.client("visit", { ip: IP.london, timezone: "Mars/Olympus" }),
      },
    ],
  },
]);
