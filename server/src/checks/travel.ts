// Impossible travel: the speed needed to get from the user's previous located evaluation to this one.
const EARTH_KM = 6371;

export function distanceKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Faster than an airliner with margin; below 500 km city-level geolocation error and trains make speed noise. */
export const IMPOSSIBLE_KMH = 1000;
export const MIN_TRAVEL_KM = 500;

export function travelSpeedKmh(
  from: { lat: number; lon: number; at: number },
  to: { lat: number; lon: number; at: number },
): { km: number; kmh: number } {
  const km = distanceKm(from, to);
  // A floor of one minute keeps back-to-back requests finite without hiding a jump across the world.
  const hours = Math.max(to.at - from.at, 60_000) / 3_600_000;
  return { km, kmh: km / hours };
}
