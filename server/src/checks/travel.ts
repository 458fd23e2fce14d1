// Impossible travel: the speed needed to get from the user's previous trusted place to this one, beyond what the
// geolocations' accuracy explains (docs/detection.md). Each place is a point with an accuracy radius; the distance travelled is
// the distance between the points less both radii, so two fuzzy fixes of one city never look like a journey.
import type { GeoResult } from "../geo/index.js";

const EARTH_KM = 6371;

export function distanceKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Faster than an airliner with margin; below 500 km (beyond the accuracy radii) trains and cars make speed noise. */
export const IMPOSSIBLE_KMH = 1000;
export const MIN_TRAVEL_KM = 500;

/**
 * Accuracy radius by the precision of the record, when the database gives none (DB-IP lite gives none; MaxMind's
 * `accuracy_radius` is used when present). City: a broadband address is placed at its ISP's nearest point of presence,
 * usually within 100 km of the subscriber. Region: a state or province is a few hundred kilometres across. Country:
 * the record is the country's centroid, up to half a large country's width away (2,500 km covers all but Russia,
 * Canada, the United States, China, Brazil and Australia end to end).
 */
export const DEFAULT_ACCURACY_KM = { city: 100, region: 300, country: 2500 } as const;

/**
 * Networks whose location says nothing about where the user is, so travel is never measured to or from them:
 * VPN, proxy and Tor exits (the user chose a far server; that is `ip_is_anonymous`); datacenters, where corporate
 * security gateways and cloud desktops leave the internet far from the employee (that is `ip_is_hosting`); and mobile
 * carriers, whose phones leave through carrier-grade NAT gateways hundreds of kilometres away, and through their home
 * country when roaming.
 */
const UNPLACED = new Set(["vpn", "proxy", "tor", "hosting", "mobile"]);

export interface Place {
  lat: number;
  lon: number;
  radiusKm: number;
  at: number;
}

/** Where an IP's geolocation places its user at `at`, or undefined when it does not (no coordinates, or see UNPLACED). */
export function placeOf(geo: GeoResult | undefined, at: number, coordinates?: { lat: number; lon: number }): Place | undefined {
  if (!geo || geo.tor || (geo.network !== undefined && UNPLACED.has(geo.network))) return undefined;
  const lat = coordinates?.lat ?? geo.latitude;
  const lon = coordinates?.lon ?? geo.longitude;
  if (lat === undefined || lon === undefined) return undefined;
  return { lat, lon, radiusKm: geo.accuracy_km ?? DEFAULT_ACCURACY_KM[geo.precision ?? "city"], at };
}

/** The distance that must have been travelled (beyond both radii) and the speed it needs. */
export function travelBetween(from: Place, to: Place): { km: number; kmh: number } {
  const km = Math.max(0, distanceKm(from, to) - from.radiusKm - to.radiusKm);
  return { km, kmh: speed(km, from.at, to.at) };
}

export function travelSpeedKmh(
  from: { lat: number; lon: number; at: number },
  to: { lat: number; lon: number; at: number },
): { km: number; kmh: number } {
  const km = distanceKm(from, to);
  return { km, kmh: speed(km, from.at, to.at) };
}

export function isImpossible(t: { km: number; kmh: number } | undefined, minKm = MIN_TRAVEL_KM): boolean {
  return !!t && t.km >= minKm && t.kmh > IMPOSSIBLE_KMH;
}

/**
 * Two sessions in use within the active window (15 minutes) are far apart beyond this, past both accuracy radii: no
 * train or car covers it in that time, so the longer journeys' 500 km allowance for ground-travel noise is not needed.
 */
export const MIN_SESSIONS_APART_KM = 250;

function speed(km: number, from: number, to: number): number {
  // A floor of one minute keeps back-to-back requests finite without hiding a jump across the world.
  const hours = Math.max(Math.abs(to - from), 60_000) / 3_600_000;
  return km / hours;
}
