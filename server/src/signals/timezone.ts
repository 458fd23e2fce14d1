// Signal: the browser's time zone against the IP's location. No time-zone database is needed: the zone's UTC
// offset now is compared with the solar offset of the IP's longitude (15° per hour). More than 3.5 hours apart
// (wider than any country's legal-versus-solar gap plus DST) means the browser is far from its IP: a VPN or proxy, or
// just as often a traveller whose laptop kept its home zone. So it is its own weak check (`timezone_mismatch`), never
// counted as a VPN or an anonymous network.

import { BoundedMap } from "../caches.js";
import type { SignalContext, SignalSet } from "./types.js";

const MISMATCH_HOURS = 3.5;
/**
 * Per zone: its formatter (null for a name Intl does not know), and the offset it gave for the last minute asked.
 * Formatting the offset was a visible share of an evaluation's CPU, and nearly every request asks about the current
 * minute of a few zones. Since 1972 every transition of the time-zone database falls on a whole minute, though not
 * always on a quarter hour (Antarctica/Casey changed at 16:01 UTC in 2022): a minute's offset holds all through it.
 * Bounded: the names come from the client.
 */
interface Zone {
  fmt: Intl.DateTimeFormat | null;
  /** The canonical name (an alias such as Asia/Kolkata gives Asia/Calcutta) when it names a place, else undefined. */
  place: string | undefined;
  minute: number;
  offset: number | undefined;
}
const zones = new BoundedMap<string, Zone>(5000);

function zoneOf(timeZone: string): Zone {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    let fmt: Intl.DateTimeFormat | null;
    try {
      fmt = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    } catch {
      fmt = null;
    }
    const canonical = fmt?.resolvedOptions().timeZone;
    const place = canonical && canonical !== "UTC" && !canonical.startsWith("Etc/") ? canonical : undefined;
    zone = { fmt, place, minute: Number.NaN, offset: undefined };
    zones.set(timeZone, zone);
  }
  return zone;
}

/** The canonical IANA name of a zone that names a place; undefined for UTC, an Etc/ offset, or a name Intl does not know. */
export function placeZone(timeZone: string): string | undefined {
  return zoneOf(timeZone).place;
}

export function utcOffsetHours(timeZone: string, at: number): number | undefined {
  const zone = zoneOf(timeZone);
  if (!zone.fmt) return undefined;
  const minute = Math.floor(at / 60_000);
  if (minute !== zone.minute) {
    zone.offset = formattedOffset(zone.fmt, at);
    zone.minute = minute;
  }
  return zone.offset;
}

function formattedOffset(fmt: Intl.DateTimeFormat, at: number): number | undefined {
  const name = fmt.formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "";
  const m = /GMT([+-])(\d{1,2})(?::(\d{2}))?/.exec(name);
  if (!m) return name === "GMT" ? 0 : undefined;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) + Number(m[3] ?? 0) / 60);
}

/**
 * The zones of a country (ISO 3166-1 alpha-2), canonical as placeZone gives them, from the CLDR data that Intl carries
 * (no time-zone package, nothing fetched); empty for a code CLDR does not know. Keyed by the geolocation's country
 * code, never by a client value, so the cache holds at most one entry per country.
 */
const countryZones = new Map<string, ReadonlySet<string>>();
export function zonesOfCountry(country: string): ReadonlySet<string> {
  let out = countryZones.get(country);
  if (out === undefined) {
    const names: string[] = [];
    if (/^[A-Z]{2}$/.test(country)) {
      // V8 renamed the accessor `timeZones` to the method `getTimeZones()` (Intl Locale Info, stage 3); both are tried.
      const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & { getTimeZones?(): string[]; timeZones?: string[] };
      names.push(...(locale.getTimeZones?.() ?? locale.timeZones ?? []));
    }
    out = new Set(names.map((n) => placeZone(n)).filter((z): z is string => z !== undefined));
    countryZones.set(country, out);
  }
  return out;
}

export function timezone({ input }: SignalContext, geo: SignalSet["geolocation"]): SignalSet["timezone"] {
  const fromComponent = input.signals.components?.timezone?.value;
  const browser = input.signals.timezone ?? (typeof fromComponent === "string" ? fromComponent : undefined);
  if (!browser) return { mismatch: false };
  const offsetHours = utcOffsetHours(browser, input.at);
  const zone = placeZone(browser);
  // A zone Intl knows that names no place (UTC, an Etc/ offset); undefined for a name Intl does not know.
  const placeless = zoneOf(browser).fmt === null ? undefined : zone === undefined;
  // One of the zones of the IP's country: what a phone takes from the network it is on, and what an anti-detect
  // browser sets from its proxy. Unknown when either side names no place.
  const local = zone !== undefined && geo?.country_code !== undefined ? zonesOfCountry(geo.country_code).has(zone) : undefined;
  if (offsetHours === undefined || geo?.longitude === undefined) return { browser, zone, placeless, local, offsetHours, mismatch: false };
  let diff = Math.abs(offsetHours - geo.longitude / 15);
  if (diff > 12) diff = 24 - diff;
  return { browser, zone, placeless, local, offsetHours, mismatch: diff > MISMATCH_HOURS };
}
