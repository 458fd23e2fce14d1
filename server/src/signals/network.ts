// Signal: the network of the IP as a user's history remembers it (`is_new_network`): its /24 (IPv4) or /48
// (IPv6), where one site's or one NAT gateway's addresses sit, and its ASN when the network belongs to its users
// (an ISP, a mobile carrier, a company). A cloud's, a VPN's or a proxy provider's ASN is shared with strangers, an
// attacker renting the same cloud among them: there only the /24 counts. The shipped data knows the ASNs of the
// networks it lists (hosting, VPN, proxy, carriers); a GEOIP_ASN_DB gives every ISP's.
import { networkOf } from "../geo/ip.js";
import type { SignalContext, SignalSet } from "./types.js";

const SHARED_KINDS = new Set(["hosting", "vpn", "proxy", "tor"]);

export function network({ input }: SignalContext, geo: SignalSet["geolocation"]): SignalSet["network"] {
  const prefix = input.ip ? networkOf(input.ip) : undefined;
  if (!prefix) return undefined;
  const shared = geo?.tor === true || (geo?.network !== undefined && SHARED_KINDS.has(geo.network));
  return { prefix, ...(geo?.asn !== undefined && !shared ? { asn: geo.asn } : {}) };
}

/** A cloud's, a VPN's or a proxy service's network, whose ASN strangers share (Tor exits are not one provider's). */
const PROVIDER_KINDS = new Set(["hosting", "vpn", "proxy"]);

/** The provider's ASN when the IP is on such a network (churn and familiarity are counted by it there), else undefined. */
export function providerAsn(geo: SignalSet["geolocation"]): number | undefined {
  return geo?.network && PROVIDER_KINDS.has(geo.network) ? geo.asn : undefined;
}
