// Signal: a forward proxy that announced itself in the request's headers (`ip_is_proxy`; docs/detection.md).
//
// Which forwarding evidence still means a proxy, and why (docs/detection.md):
// - `Via` does not: Google Cloud load balancers ("1.1 google"), Heroku's router ("1.1 vegur"), CloudFront, Akamai
//   and most CDNs and corporate caches add it to every request, so it says how the operator's own edge is built.
// - Neither does the length of `X-Forwarded-For` / `Forwarded`: a CDN in front of a load balancer in front of a PaaS
//   router is three honest hops. Which hops are the operator's is what TRUST_PROXY says; the client IP is taken
//   after them, and the hops before it are claims anyone can write.
// - What remains are headers that forward-proxy software adds and that load balancers and CDNs never do
//   (`X-Proxy-ID`, `Proxy-Connection` reaching an origin, Blue Coat's `X-BlueCoat-Via`, the non-standard
//   `Forwarded-For`). They mean the client sat behind a proxy — a transparent one, since it announces itself: it
//   sets `ip_is_proxy`, never `ip_is_anonymous`. Anonymising proxies are known by their networks (server/data).
// An attacker gains nothing by sending these headers (they only add suspicion) and cannot remove what their proxy adds.
import type { SignalContext, SignalSet } from "./types.js";

const PROXY_HEADERS = ["x-proxy-id", "proxy-connection", "x-bluecoat-via", "forwarded-for"];

export function forwarding({ input }: SignalContext): SignalSet["forwarding"] {
  const h = input.headers;
  return { proxied: PROXY_HEADERS.some((name) => h[name] !== undefined) };
}
