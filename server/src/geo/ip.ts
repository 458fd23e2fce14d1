// IP addresses as numbers for range lookups: IPv4 as a number, IPv6 as a bigint (IPv4-mapped IPv6 → IPv4).
import ipaddr from "ipaddr.js";

export type IpKey = { v: 4; n: number } | { v: 6; n: bigint };

/** The address, IPv4-mapped IPv6 as IPv4; undefined for a string that is no address. */
export function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const octets = dottedQuad(ip);
  if (octets) return new ipaddr.IPv4(octets);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // parse checks the syntax itself (and throws): asking isValid first would parse the string twice more.
    addr = ipaddr.parse(ip);
  } catch {
    return undefined;
  }
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr;
}

/** Four decimal octets without leading zeros: the IPv4 form a socket gives, which ipaddr.parse reads the same. */
const DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

/**
 * The octets of an IPv4 address in its usual form, read directly; undefined for any other string, which parseIp leaves
 * to ipaddr.parse. That tries the string as IPv6 first and then reads it twice as IPv4 (its check, then its parse):
 * ~0.7 µs, several times per evaluation. Octal (`010.…`), hex and short forms still go to ipaddr.parse.
 */
function dottedQuad(ip: string): number[] | undefined {
  const m = DOTTED_QUAD.exec(ip);
  if (!m) return undefined;
  const octets = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  return octets.every((o) => o <= 255) ? octets : undefined;
}

export function keyOf(addr: ipaddr.IPv4 | ipaddr.IPv6): IpKey {
  if (addr.kind() === "ipv4") {
    const o = (addr as ipaddr.IPv4).octets;
    return { v: 4, n: (o[0] as number) * 16777216 + (o[1] as number) * 65536 + (o[2] as number) * 256 + (o[3] as number) };
  }
  let n = 0n;
  for (const part of (addr as ipaddr.IPv6).parts) n = (n << 16n) | BigInt(part);
  return { v: 6, n };
}

export function ipKey(ip: string): IpKey | undefined {
  const addr = parseIp(ip);
  return addr && keyOf(addr);
}

/** The inclusive range of a CIDR (`a.b.c.d/len`, `x::/len`) or of a single address. */
export function cidrRange(text: string): { first: IpKey; last: IpKey } | undefined {
  const [addr, lenText] = text.split("/");
  const first = addr ? ipKey(addr) : undefined;
  if (!first) return undefined;
  const bits = first.v === 4 ? 32 : 128;
  const len = lenText === undefined ? bits : Number(lenText);
  if (!Number.isInteger(len) || len < 0 || len > bits) return undefined;
  if (first.v === 4) {
    const size = 2 ** (32 - len);
    const start = Math.floor(first.n / size) * size;
    return { first: { v: 4, n: start }, last: { v: 4, n: start + size - 1 } };
  }
  const host = (1n << BigInt(128 - len)) - 1n;
  const start = first.n & ~host & ((1n << 128n) - 1n);
  return { first: { v: 6, n: start }, last: { v: 6, n: start | host } };
}

/**
 * The network an address belongs to for "have we seen this network" (docs/detection.md): its /24 for IPv4, its /48 for IPv6
 * (what one site or one NAT gateway is usually given), as a CIDR string. Undefined for a string that is no address.
 */
export function networkOf(ip: string | null | undefined): string | undefined {
  const addr = ip ? parseIp(ip) : undefined;
  if (!addr) return undefined;
  if (addr.kind() === "ipv4") {
    const [a, b, c] = (addr as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const [a, b, c] = (addr as ipaddr.IPv6).parts;
  return `${(a as number).toString(16)}:${(b as number).toString(16)}:${(c as number).toString(16)}::/48`;
}

/** The first four groups of an IPv6 address, as its /64 in CIDR form. */
function slash64(addr: ipaddr.IPv6): string {
  return `${addr.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(":")}::/64`;
}

/**
 * The key every per-IP limit and count uses (docs/security.md "Per-IP means per-network for IPv6"): the IPv4 address,
 * or the /64 of an IPv6 one (`2001:db8:0:1::/64`; IPv4-mapped IPv6 as IPv4). An ISP gives each subscriber a /64 at
 * least, and one machine may take any address in it (privacy addresses change daily), so counting IPv6 addresses let
 * one client be 2^64 clients. The send caps and rate limits count it, and so do detection's per-IP counts (velocity,
 * users of an IP, provisional logins, fingerprint churn, sign-up farms) and `is_new_ip` (docs/detection.md): stored on
 * each evaluation as `ip_key` (migration 37). A string that is no address is its own key. networkOf's /24 and /48
 * answer "have we seen this network", a different question.
 */
export function perIpKey(ip: string): string {
  // A socket's IPv4 form is already its key: no address object for the common case (several calls per evaluation).
  if (dottedQuad(ip)) return ip;
  const addr = parseIp(ip);
  if (!addr) return ip;
  return addr.kind() === "ipv4" ? addr.toString() : slash64(addr as ipaddr.IPv6);
}

/**
 * The network a per-source budget counts (docs/security.md, "Budgets per source"): an IPv4 address's /24, an IPv6
 * address's /64 — what one household, office or phone is given, and within which a host changes its address at will
 * (IPv6 privacy addresses change daily). Not networkOf, whose /48 for IPv6 is detection's "have we seen this network".
 * Undefined for a string that is no address.
 */
export function budgetNetworkOf(ip: string | null | undefined): string | undefined {
  const addr = ip ? parseIp(ip) : undefined;
  if (!addr) return undefined;
  if (addr.kind() === "ipv4") {
    const [a, b, c] = (addr as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  return slash64(addr as ipaddr.IPv6);
}
