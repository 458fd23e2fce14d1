// The one code path that persists an identity (SPEC.md 13): the fingerprint (inserted, moved after a drift of the
// browser's own, or sighted), the device (inserted, or updated: seen, its fingerprint, its token, its owner) and a
// fingerprint's popularity. The evaluation pipeline and the client device operations both call it, in their own
// transaction, with the identity resolveIdentity answered.
import type { DeviceRow } from "../store/devices.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import type { EvaluationInput } from "./context.js";
import type { Identity } from "./identity.js";

export interface PersistOptions {
  /** The account the device joins when `admitted`. */
  user?: UserRow;
  /** The verdict lets the user in (allow, restrict): the device joins the user's account. */
  admitted?: boolean;
}

/** Writes what `identity` implies (in the caller's transaction); answers whether the device was kicked since it last asked (log out once). */
export async function persistIdentity(
  repos: Repos,
  input: EvaluationInput,
  identity: Identity,
  opts: PersistOptions = {},
): Promise<{ logout: boolean }> {
  const at = input.at;
  const fp = identity.fingerprint;
  if (fp) {
    if (fp.isNew) await repos.fingerprints.insert(fp.row);
    // A drift of the browser's own fingerprint moves it to the components just seen (a sighting too, in one write).
    else if (fp.drift) {
      await repos.fingerprints.updateComponents(fp.row.id, { ...fp.drift, last_seen_at: at });
      Object.assign(fp.row, fp.drift, { last_seen_at: at });
    } else await repos.fingerprints.touch(fp.row, at);
    if (fp.becamePopular) await repos.fingerprints.setPopular(fp.row.id);
  }
  const device = identity.device;
  if (!device) return { logout: false };
  const row = device.row;
  const user = opts.user;
  // A device joins the user's account only on a verdict that lets the user in: a challenged device joins when its
  // challenge completes, a denied one never (an attacker's browser must not count as the victim's).
  const admitted = opts.admitted === true;
  if (device.isNew) {
    if (fp) row.fingerprint_id = fp.row.id;
    if (user && admitted) Object.assign(row, { user_id: user.id, status: "attached", attached_at: at });
    await repos.devices.insert(row);
    return { logout: false };
  }
  let logout = false;
  const patch: Partial<DeviceRow> = { last_seen_at: at, last_ip: input.ip ?? row.last_ip, updated_at: at };
  if (fp && row.fingerprint_id !== fp.row.id) patch.fingerprint_id = fp.row.id;
  // A device found without its token (through its fingerprint, or its previous token) carries the token in use and
  // keeps the other: after cleared storage the new one is the browser's from now on; after a private window the
  // normal windows come back with the previous one and swap them again.
  const token = input.signals.visitor_token;
  if (token && (!row.visitor_token || (device.retoken && row.visitor_token !== token)))
    Object.assign(patch, { visitor_token: token, previous_token: row.visitor_token });
  if (row.status === "detached" && row.logout_pending === 1) {
    // Kicked since it last asked: tell the SDK to log out once; a later login re-attaches it.
    logout = true;
    patch.logout_pending = 0;
  } else if (user && admitted && (row.user_id !== user.id || row.status === "detached")) {
    Object.assign(patch, { user_id: user.id, status: "attached", attached_at: at, detached_at: null });
  }
  await repos.devices.update(row.id, patch);
  Object.assign(row, patch);
  return { logout };
}
