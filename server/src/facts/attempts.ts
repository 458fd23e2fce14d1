// Fact: logins on provisional users (docs/identity.md: accounts the backend never confirmed) by this request's browser,
// fingerprint, IP and network, within the hour and the day, the current one not counted: what credential stuffing
// leaves. A part of the history's statement of numbers (store/history.ts, store/login-attempts.ts).
import { networkOf, perIpKey } from "../geo/ip.js";
import { deviceKey } from "../store/login-attempts.js";
import { defineFacts } from "./define.js";

/** A stuffing run lasts minutes to hours (a low and slow one, a day); an honest first login is confirmed in seconds. */
export const ATTEMPT_WINDOWS = { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 };

export const attempts = defineFacts({
  name: "attempts",
  load: ({ input, identity, scalars }) => {
    const fingerprint = identity.fingerprint;
    const device = identity.device && !identity.device.isNew ? identity.device.row.id : undefined;
    return scalars.ask("attempts", {
      keys: {
        deviceKey: deviceKey(input.signals.visitor_token, device),
        fingerprintId: fingerprint && !fingerprint.isNew ? fingerprint.row.id : undefined,
        // As the attempts were stored: an IPv6 client by its /64 (geo/ip.ts, perIpKey).
        ip: input.ip ? perIpKey(input.ip) : undefined,
        network: networkOf(input.ip),
      },
      since: { hour: input.at - ATTEMPT_WINDOWS.hour, day: input.at - ATTEMPT_WINDOWS.day },
      userId: identity.user?.id,
    });
  },
});
