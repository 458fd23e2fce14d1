// Builds networks.txt.gz (the shipped snapshot of hosting, VPN and proxy networks) from the IP → ASN CSVs of
// @ip-location-db/asn (RouteViews + NRO + DB-IP, CC BY 4.0). Run by hand when refreshing the snapshot:
//   node server/data/extract-networks.mjs <dir with asn-ipv4.csv and asn-ipv6.csv> | gzip -9n > server/data/networks.txt.gz
// Only the ASNs below and the mobile carriers are kept, and adjacent ranges of one ASN are merged (about 1 MiB).
import fs from "node:fs";
import path from "node:path";

// ASN → kind. hosting: cloud and dedicated-server providers (bots and scripted traffic live there); vpn: networks
// run by or for commercial VPN providers; proxy: networks selling proxies. Residential ISPs, mobile carriers and
// privacy relays used by ordinary browsers (iCloud Private Relay, WARP) are deliberately absent.
const KINDS = {
  hosting: [16509, 14618, 8987, 396982, 19527, 8075, 14061, 200130, 16276, 24940, 213230, 63949, 20473, 51167, 40021, 12876, 31898, 45102, 37963, 132203, 45090, 36352, 46606, 26496, 398101, 19318, 53667, 197540, 60781, 28753, 30633, 59253, 8100, 23470, 25820, 35916, 396356, 62567, 54290, 40244, 11878, 32613, 20860, 34549, 58065, 50673, 206264, 49981, 8560],
  vpn: [9009, 16247, 42973, 33970, 51332, 212238, 60068, 136787, 147049, 207137, 141039, 39351, 208172, 199218, 62371, 209103, 208765],
  proxy: [197200],
  // mobile: carriers whose addresses exit through carrier-grade NAT gateways, often hundreds of kilometres from the
  // phone, and through the home network when roaming: their geolocation says little about where the user is
  // (impossible travel ignores them) and their address pools are wide (one ASN is one familiar network). These are
  // mobile-only ASNs whose owner name in this data does not say so (Verizon Wireless appears as "Verizon Business",
  // AT&T Mobility as "AT&T Enterprises", Bell Mobility as "Bell Canada"); the others are found by name below.
  // Carriers that share one ASN with their fixed lines (SoftBank, Orange, Deutsche Telekom) are left out.
  mobile: [22394, 6167, 20057, 45609, 23693, 132199, 28403, 36522, 25135, 30722, 206067, 35228, 26615, 38266],
};
const kindOf = new Map();
for (const [kind, asns] of Object.entries(KINDS)) for (const a of asns) kindOf.set(a, kind);
// Owner names that say "mobile carrier" (the same test server/src/geo/networks.ts applies to a GEOIP_ASN_DB's names).
const CARRIER_NAME = /\b(mobile|mobility|cellular|cellco|m[oó]vil|mobilfunk|gprs)\b/i;
const NOT_CARRIER = /automobile/i;
const kindOfRange = (asn, org) => kindOf.get(asn) ?? (CARRIER_NAME.test(org) && !NOT_CARRIER.test(org) ? "mobile" : undefined);

function parseCsvLine(line) {
  const out = [];
  let cur = "";
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (q) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (ch === '"') q = false;
      else cur += ch;
    } else if (ch === '"') q = true;
    else if (ch === ",") out.push(cur), (cur = "");
    else cur += ch;
  }
  out.push(cur);
  return out;
}

const dir = process.argv[2];
const lines = [
  "# Hosting, VPN and proxy networks (format in server/src/geo/networks.ts; built by server/data/extract-networks.mjs).",
  "# Derived from @ip-location-db/asn (RouteViews, NRO, DB-IP; CC BY 4.0). Replace with NETWORK_LIST.",
];
const orgs = new Map();
const ranges = [];
for (const file of ["asn-ipv4.csv", "asn-ipv6.csv"]) {
  let last;
  for (const raw of fs.readFileSync(path.join(dir, file), "utf8").split("\n")) {
    if (!raw) continue;
    const [start, end, asnText, org] = parseCsvLine(raw);
    const asn = Number(asnText);
    const kind = kindOfRange(asn, org ?? "");
    if (!kind) continue;
    if (last && last.asn === asn && file === "asn-ipv4.csv" && toNum(last.end) + 1 === toNum(start)) {
      last.end = end;
      continue;
    }
    if (last) ranges.push(`${last.start}-${last.end} AS${last.asn}`);
    if (!orgs.has(asn)) orgs.set(asn, `AS${asn} ${kind} ${(org ?? "").replace(/\s+/g, " ").slice(0, 60)}`.trim());
    last = { start, end, asn };
  }
  if (last) ranges.push(`${last.start}-${last.end} AS${last.asn}`);
}
lines.push(...orgs.values(), ...ranges);
function toNum(ip) {
  return ip.split(".").reduce((a, b) => a * 256 + Number(b), 0);
}
process.stdout.write(`${lines.join("\n")}\n`);
