// Signal: where the IP is and what network it belongs to (offline databases, see ../geo).
import type { SignalContext, SignalSet } from "./types.js";

export function geolocation({ input, geo }: SignalContext): SignalSet["geolocation"] {
  return input.ip ? geo.lookup(input.ip) : undefined;
}
