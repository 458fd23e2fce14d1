// Checks of travel (docs/detection.md, "Trusted history"): the speed needed to get here from the user's latest trusted
// place, and from the browser's own latest place within the day; the distance from the nearest trusted place in this
// country. Measured only from an address that places someone (checks/travel.ts: not a VPN, proxy, Tor, datacenter or
// carrier exit).
import { browserPlaces, trustedPlaces } from "../../facts/places.js";
import { geo } from "../../geo/index.js";
import { networkOf } from "../../geo/ip.js";
import { type CheckContext, defineCheck, derived } from "../define.js";
import { isImpossible, type Place, placeOf, travelBetween } from "../travel.js";

type Journey = { km: number; kmh: number };

/** One of the user's latest trusted places that place the user somewhere, or that are this network. */
interface TrustedSpot {
  /** Where it placed the user (not a VPN, proxy, Tor, datacenter or carrier exit). */
  place?: Place;
  country: string | null;
  /** It is this network (the same address or /24): one site, whatever its geolocation. */
  here: boolean;
}

/**
 * The user's latest trusted places, newest first. An earlier place's network kind and accuracy are looked up again
 * from its IP (the same offline data, cached); its coordinates and country are those it was stored with.
 */
function trustedSpots(c: CheckContext<readonly [typeof trustedPlaces]>): TrustedSpot[] {
  const network = c.signals.network?.prefix;
  const out: TrustedSpot[] = [];
  for (const prev of c.facts.trustedPlaces) {
    if (!prev.ip) continue;
    const here = prev.ip === c.input.ip || (!!network && prev.network === network);
    const place = placeOf(geo().lookup(prev.ip), prev.created_at, { lat: prev.latitude, lon: prev.longitude });
    if (here || place) out.push({ place, country: prev.country_code, here });
  }
  return out;
}

/**
 * Travel from the user's latest trusted place that is somewhere. When that place is this network, the user was last
 * seen here and nothing was travelled.
 */
function travelOf(here: Place, spots: TrustedSpot[]): Journey | undefined {
  const last = spots[0];
  return last?.place && !last.here ? travelBetween(last.place, here) : undefined;
}

/**
 * Kilometres from here to the nearest of the user's latest trusted places in this IP's country, beyond both accuracy
 * radii (0 on one of their networks, or within the radii); undefined when this IP places no one or the user has no
 * such place in this country (a trip's places say nothing about where at home the user lives; a carrier's exit says
 * nothing about where the phone was). A residential proxy "in the victim's country" is seldom in the victim's region.
 */
function distanceFromTrusted(here: Place, country: string | undefined, spots: TrustedSpot[]): number | undefined {
  if (!country) return undefined;
  const inCountry = spots.filter((s) => s.here || s.country === country);
  if (inCountry.length === 0) return undefined;
  return Math.min(...inCountry.map((s) => (s.here || !s.place ? 0 : travelBetween(s.place, here).km)));
}

/** The user's journey from their latest trusted place, and the distance from the nearest in this country. */
const accountTravel = derived((c: CheckContext<readonly [typeof trustedPlaces]>): { travel?: Journey; fromTrusted?: number } => {
  // Both measure from here: an address that places no one (a VPN, proxy, Tor, datacenter or carrier exit) needs no
  // look-up of the user's places.
  const here = placeOf(c.signals.geolocation, c.input.at);
  if (!here) return {};
  const spots = trustedSpots(c);
  return { travel: travelOf(here, spots), fromTrusted: distanceFromTrusted(here, c.signals.geolocation?.country_code, spots) };
});

/**
 * Travel from the browser's latest place within the day that places anyone (facts/places.ts: its identifying,
 * non-popular fingerprint's evaluations and its devices' last addresses, whatever account it named and whatever the
 * verdict) to here. One browser profile driven through a residential proxy network is in Madrid, then Sydney, then
 * Osaka within a few hours; a laptop on a trip is carried. Undefined when the browser was last on this network, or was
 * placed nowhere within the day.
 */
const browserTravel = derived((c: CheckContext<readonly [typeof browserPlaces]>): Journey | undefined => {
  const here = placeOf(c.signals.geolocation, c.input.at);
  if (!here) return undefined;
  const network = networkOf(c.input.ip);
  for (const prev of c.facts.browserPlaces) {
    if (network && networkOf(prev.ip) === network) return undefined;
    const place = placeOf(geo().lookup(prev.ip), prev.at, prev.coordinates);
    if (place) return travelBetween(place, here);
  }
  return undefined;
});

export const checks = [
  defineCheck({
    name: "impossible_travel",
    type: "boolean",
    doc: "Getting here from the user's latest trusted place needs more than 1,000 km/h over more than 500 km, beyond both geolocations' accuracy radii.",
    reason: "impossible_travel",
    needs: [trustedPlaces],
    compute: (c) => isImpossible(accountTravel(c).travel),
  }),
  defineCheck({
    name: "travel_speed_kmh",
    type: "number",
    doc: "The speed, in km/h, needed to get here from the user's latest trusted place (0 when nothing was travelled or nothing is measured).",
    reason: "impossible_travel",
    needs: [trustedPlaces],
    compute: (c) => {
      const travel = accountTravel(c).travel;
      return travel ? Math.round(travel.kmh) : 0;
    },
  }),
  defineCheck({
    name: "browser_impossible_travel",
    type: "boolean",
    doc: "The browser (its device, or its identifying, non-popular fingerprint) was, within the day, on a network too far away to have travelled here since (the impossible_travel rule), whatever account it named there.",
    reason: "browser_impossible_travel",
    needs: [browserPlaces],
    compute: (c) => isImpossible(browserTravel(c)),
  }),
  defineCheck({
    name: "distance_from_trusted_km",
    type: "number",
    doc: "Kilometres from the nearest of the user's latest trusted places (let in, or verified) in this IP's country, beyond both geolocations' accuracy radii; 0 on one of those networks; null when this IP places no one (a VPN, proxy, Tor, datacenter or carrier exit) or the user has no such place in this country.",
    reason: "unfamiliar_place",
    needs: [trustedPlaces],
    compute: (c) => {
      const km = accountTravel(c).fromTrusted;
      return km === undefined ? null : Math.round(km);
    },
  }),
] as const;
