// Fact: velocity (docs/detection.md): how many evaluations of this user, IP and fingerprint came before this one
// within their windows. A part of the history's statement of numbers (store/history.ts).
import { perIpKey } from "../geo/ip.js";
import { defineFacts } from "./define.js";

/** Sliding windows of the velocity checks: a person's pace per user over the hour, a script's per IP and browser in minutes. */
export const VELOCITY_WINDOWS = {
  user: 60 * 60 * 1000,
  ip: 10 * 60 * 1000,
  fingerprint: 10 * 60 * 1000,
};

export const velocity = defineFacts({
  name: "velocity",
  load: ({ input, identity, scalars }) =>
    scalars.ask("velocity", {
      // Counted by the customer's user id and the fingerprint even when new (not stored yet): the first evaluation of a
      // burst counts for the others.
      keys: {
        userId: identity.user?.id,
        externalUser: input.user ?? identity.user?.external_id,
        // Per IP: an IPv6 client is its /64 (geo/ip.ts, perIpKey), whichever address of it it takes.
        ip: input.ip ? perIpKey(input.ip) : undefined,
        fingerprintId: identity.fingerprint?.row.id,
      },
      since: {
        user: input.at - VELOCITY_WINDOWS.user,
        ip: input.at - VELOCITY_WINDOWS.ip,
        fingerprint: input.at - VELOCITY_WINDOWS.fingerprint,
      },
      at: input.at,
    }),
});
