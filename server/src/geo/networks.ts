// Hosting, VPN, proxy, Tor and mobile-carrier networks from plain text lists (format in server/data/README.md),
// parsed once; and the carrier test on an ASN owner's name.
import { cidrRange, type IpKey, ipKey } from "./ip.js";
import { RangeTable } from "./ranges.js";

export const NETWORK_KINDS = ["hosting", "vpn", "proxy", "tor", "mobile"] as const;
export type NetworkKind = (typeof NETWORK_KINDS)[number];

/**
 * Owner names of mobile carriers, for ASN data that names owners (a GEOIP_ASN_DB). The shipped list was built with the
 * same words (server/data/extract-networks.mjs). "Wireless" is left out: it names as many fixed-line incumbents
 * ("Cable & Wireless") and rural fixed-wireless ISPs as carriers.
 */
const CARRIER_NAME = /\b(mobile|mobility|cellular|cellco|m[oó]vil|mobilfunk|gprs)\b/i;
const NOT_CARRIER = /automobile/i;

export function isCarrierName(org: string | undefined): boolean {
  return !!org && CARRIER_NAME.test(org) && !NOT_CARRIER.test(org);
}

export interface NetworkInfo {
  kind?: NetworkKind;
  asn?: number;
  org?: string;
}

export class NetworkList {
  readonly asns = new Map<number, { kind: NetworkKind; org?: string }>();
  readonly ranges = new RangeTable<NetworkInfo>();

  /** Adds the entries of one file's text; unknown lines are skipped and counted. */
  load(text: string, defaultKind?: NetworkKind): { entries: number; skipped: number } {
    let entries = 0;
    let skipped = 0;
    const pending: { first: ReturnType<typeof ipKey>; last: ReturnType<typeof ipKey>; ref: string }[] = [];
    for (const raw of text.split("\n")) {
      const line = raw.replace(/#.*/, "").trim();
      if (!line) continue;
      const [target, kindOrAsn, ...rest] = line.split(/\s+/);
      if (!target) continue;
      const asnDecl = /^AS(\d+)$/i.exec(target);
      if (asnDecl && isKind(kindOrAsn)) {
        this.asns.set(Number(asnDecl[1]), { kind: kindOrAsn, org: rest.join(" ") || undefined });
        entries++;
        continue;
      }
      let first: ReturnType<typeof ipKey>;
      let last: ReturnType<typeof ipKey>;
      if (target.includes("-")) {
        const [a, b] = target.split("-");
        first = a ? ipKey(a) : undefined;
        last = b ? ipKey(b) : undefined;
      } else {
        const r = cidrRange(target);
        first = r?.first;
        last = r?.last;
      }
      const ref = kindOrAsn ?? defaultKind;
      if (!first || !last || first.v !== last.v || !ref) {
        skipped++;
        continue;
      }
      pending.push({ first, last, ref });
      entries++;
    }
    // Ranges may name an ASN declared anywhere in the file: resolve after the whole file is read.
    for (const p of pending) {
      const asnRef = /^AS(\d+)$/i.exec(p.ref);
      let info: NetworkInfo;
      if (asnRef) {
        const asn = Number(asnRef[1]);
        const decl = this.asns.get(asn);
        info = { asn, kind: decl?.kind, org: decl?.org };
      } else if (isKind(p.ref)) info = { kind: p.ref };
      else continue;
      if (p.first && p.last) this.ranges.add(p.first, p.last, info);
    }
    this.ranges.seal();
    return { entries, skipped };
  }

  /** By the address's key (a geo lookup parses the address once for every table), else by its ASN. */
  lookup(key: IpKey | undefined, asn?: number): NetworkInfo | undefined {
    const byRange = key ? this.ranges.get(key) : undefined;
    if (byRange) return byRange;
    if (asn !== undefined) {
      const decl = this.asns.get(asn);
      if (decl) return { asn, kind: decl.kind, org: decl.org };
    }
    return undefined;
  }
}

function isKind(v: string | undefined): v is NetworkKind {
  return v !== undefined && (NETWORK_KINDS as readonly string[]).includes(v);
}
