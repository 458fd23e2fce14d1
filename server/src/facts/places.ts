// Facts: where the user and the browser have been (docs/detection.md, "Trusted history"): the user's latest trusted
// places (travel and the distance from home are measured from them), and the browser's own latest places within the
// day, whatever account it named (browser_impossible_travel).
import { placeOf } from "../checks/travel.js";
import type { Identity } from "../pipeline/identity.js";
import type { BrowserPlace } from "../store/detection.js";
import { linkingFingerprint } from "./accounts.js";
import { defineFacts } from "./define.js";

/** A browser's latest places: beyond a day, any journey is possible. */
export const BROWSER_PLACES_WINDOW = 24 * 60 * 60 * 1000;

/** The user's latest trusted evaluations with a location, newest first (store/history.ts). */
export const trustedPlaces = defineFacts({
  name: "trustedPlaces",
  load: async ({ input, identity, repos }) => (identity.user ? repos.history.trustedPlaces(input.env.id, identity.user.id) : []),
});

/**
 * Where the browser was within BROWSER_PLACES_WINDOW, newest first, whoever it named: its identifying, non-popular
 * fingerprint's latest evaluations, and the last address of each device of its visitor token and of this device.
 */
export const browserPlaces = defineFacts({
  name: "browserPlaces",
  load: async ({ input, identity, signals, repos }) => {
    const since = input.at - BROWSER_PLACES_WINDOW;
    const linking = linkingFingerprint(identity);
    // Only where this address places anyone: from a VPN, proxy, Tor, datacenter or carrier exit nothing is measured.
    const fingerprintPlaces =
      linking && input.ip && placeOf(signals.geolocation, input.at)
        ? await repos.detection.fingerprintPlaces(input.env.id, linking, since)
        : [];
    return input.ip ? placesOfBrowser(identity, fingerprintPlaces, since) : [];
  },
});

/**
 * Where the browser was since `since`, newest first: the fingerprint's places, and each device of the visitor token
 * (one per account it named) and this request's device at its last address. A token is one browser's storage; the
 * fingerprint's places are read only while it is identifying and not popular (docs/identity.md).
 */
function placesOfBrowser(identity: Identity, fingerprintPlaces: BrowserPlace[], since: number): BrowserPlace[] {
  const devices = [...(identity.tokenDevices ?? []), ...(identity.device && !identity.device.isNew ? [identity.device.row] : [])];
  const places = [...fingerprintPlaces];
  for (const d of devices)
    if (d.last_ip && d.last_seen_at != null && Number(d.last_seen_at) >= since) places.push({ ip: d.last_ip, at: Number(d.last_seen_at) });
  return places.sort((a, b) => b.at - a.at);
}
