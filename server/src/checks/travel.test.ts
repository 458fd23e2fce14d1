// Impossible travel's arithmetic: great-circle distance, the speed between two located evaluations, accuracy radii
// and the networks that place nobody.
import { describe, expect, it } from "vitest";
import type { GeoResult } from "../geo/index.js";
import {
  DEFAULT_ACCURACY_KM,
  distanceKm,
  IMPOSSIBLE_KMH,
  isImpossible,
  MIN_TRAVEL_KM,
  placeOf,
  travelBetween,
  travelSpeedKmh,
} from "./travel.js";

const LONDON = { lat: 51.5143, lon: -0.0912 };
const TOKYO = { lat: 35.6552, lon: 139.761 };
const PARIS = { lat: 48.8566, lon: 2.3522 };
const HOUR = 3_600_000;

describe("travel", () => {
  it("measures great-circle distances", () => {
    expect(distanceKm(LONDON, TOKYO)).toBeGreaterThan(9500);
    expect(distanceKm(LONDON, TOKYO)).toBeLessThan(9650);
    expect(distanceKm(LONDON, PARIS)).toBeGreaterThan(330);
    expect(distanceKm(LONDON, PARIS)).toBeLessThan(350);
    expect(distanceKm(LONDON, LONDON)).toBe(0);
  });

  it("a flight's pace is possible, a jump across the world in minutes is not", () => {
    const flight = travelSpeedKmh({ ...LONDON, at: 0 }, { ...TOKYO, at: 14 * HOUR });
    expect(flight.kmh).toBeLessThan(IMPOSSIBLE_KMH);
    const jump = travelSpeedKmh({ ...LONDON, at: 0 }, { ...TOKYO, at: 10 * 60_000 });
    expect(jump.kmh).toBeGreaterThan(IMPOSSIBLE_KMH);
    expect(jump.km).toBeGreaterThan(MIN_TRAVEL_KM);
  });

  it("back-to-back requests get a one-minute floor: finite, and still impossible across the world", () => {
    const sameInstant = travelSpeedKmh({ ...LONDON, at: 5 }, { ...TOKYO, at: 5 });
    expect(Number.isFinite(sameInstant.kmh)).toBe(true);
    expect(sameInstant.kmh).toBeCloseTo(sameInstant.km * 60, 6);
  });
});

const geoAt = (p: { lat: number; lon: number }, more: Partial<GeoResult> = {}): GeoResult => ({
  ip: "81.2.69.1",
  tor: false,
  latitude: p.lat,
  longitude: p.lon,
  precision: "city",
  ...more,
});
const EDINBURGH = { lat: 55.9533, lon: -3.1883 };

describe("places and accuracy", () => {
  it("a place's radius is the database's, else the default of its precision", () => {
    expect(placeOf(geoAt(LONDON), 0)?.radiusKm).toBe(DEFAULT_ACCURACY_KM.city);
    expect(placeOf(geoAt(LONDON, { precision: "country" }), 0)?.radiusKm).toBe(DEFAULT_ACCURACY_KM.country);
    expect(placeOf(geoAt(LONDON, { accuracy_km: 20 }), 0)?.radiusKm).toBe(20);
  });

  it("VPN, proxy, Tor, datacenter and carrier exits place nobody; a residential address does", () => {
    for (const network of ["vpn", "proxy", "tor", "hosting", "mobile"] as const)
      expect(placeOf(geoAt(LONDON, { network }), 0), network).toBeUndefined();
    expect(placeOf(geoAt(LONDON, { tor: true }), 0)).toBeUndefined();
    expect(placeOf(geoAt(LONDON), 0)).toBeDefined();
    expect(placeOf({ ip: "81.2.69.1", tor: false }, 0)).toBeUndefined();
  });

  it("the distance travelled is what lies beyond both radii", () => {
    const raw = distanceKm(LONDON, EDINBURGH);
    expect(raw).toBeGreaterThan(MIN_TRAVEL_KM);
    const fuzzy = travelBetween(placeOf(geoAt(LONDON), 0)!, placeOf(geoAt(EDINBURGH), 60_000)!);
    expect(fuzzy.km).toBeCloseTo(raw - 2 * DEFAULT_ACCURACY_KM.city, 6);
    expect(isImpossible(fuzzy)).toBe(false);
    const sharp = travelBetween(placeOf(geoAt(LONDON, { accuracy_km: 5 }), 0)!, placeOf(geoAt(EDINBURGH, { accuracy_km: 5 }), 60_000)!);
    expect(isImpossible(sharp)).toBe(true);
  });

  it("radii larger than the distance leave nothing to travel", () => {
    const t = travelBetween(placeOf(geoAt(LONDON, { precision: "country" }), 0)!, placeOf(geoAt(PARIS), 0)!);
    expect(t).toEqual({ km: 0, kmh: 0 });
    expect(isImpossible(t)).toBe(false);
    expect(isImpossible(undefined)).toBe(false);
  });
});
