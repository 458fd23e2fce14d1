// Impossible travel's arithmetic: great-circle distance and the speed between two located evaluations.
import { describe, expect, it } from "vitest";
import { distanceKm, IMPOSSIBLE_KMH, MIN_TRAVEL_KM, travelSpeedKmh } from "./travel.js";

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
