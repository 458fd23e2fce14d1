// Fact: whether the user signed in on this browser (docs/identity.md): its fingerprint is in the user's trusted
// evaluations on the device found by its own visitor token (`seen`), that device is one the user signed in on (`device`,
// device_confirmations). False without a
// user. A part of the history's statement of numbers (store/history.ts). Read by is_new_fingerprint and by the pipeline
// (pipeline/decide.ts: what a signed-in device lets in is the user's own from the start).
import { defineFacts } from "./define.js";

export const signedInBrowser = defineFacts({
  name: "browser",
  load: async ({ identity, scalars }) => {
    const userId = identity.user?.id;
    if (!userId) return { seen: false, device: false };
    return scalars.ask("browser", {
      userId,
      fingerprintId: identity.fingerprint?.row.id,
      // Asked of the device found by the request's own visitor token only: a device recognised by its fingerprint is
      // someone's who has the user's components (docs/identity.md).
      deviceId: identity.device && !identity.device.isNew && !identity.device.recognised ? identity.device.row.id : undefined,
    });
  },
});
