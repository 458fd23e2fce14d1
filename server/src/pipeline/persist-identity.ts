// The one code path that persists an identity (docs/identity.md): the fingerprint (inserted, moved after a drift of the
// browser's own, or sighted), the device (inserted, or updated: seen, its fingerprint, its token, its owner) and a
// fingerprint's popularity. The evaluation pipeline and the client device operations both call it, in their own
// transaction, with the identity resolveIdentity answered.
import type { DeviceRow } from "../store/devices.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import type { EvaluationInput } from "./context.js";
import type { Identity } from "./identity.js";

export interface PersistOptions {
  /** The account the device joins when `joins`. */
  user?: UserRow;
  /**
   * The device joins the user's account: a login or sign-up whose verdict lets the user in (allow, restrict), or a
   * request whose user id the backend signed. Never a page view (docs/identity.md, "Recognition and trust").
   */
  joins?: boolean;
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
    if (fp.created) await repos.fingerprints.insert(fp.created);
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
  // A device joins the user's account only on a login or sign-up that lets the user in (or a signed user id): a
  // challenged device joins when its challenge completes, a denied one never, and a page view never (the client id is
  // public: a stranger naming the account must not put a browser on its list).
  const joins = opts.joins === true;
  if (device.isNew) {
    if (fp) row.fingerprint_id = fp.row.id;
    if (user && joins) Object.assign(row, { user_id: user.id, status: "attached", attached_at: at });
    await repos.devices.insert(row);
    return { logout: false };
  }
  let logout = false;
  const patch: Partial<DeviceRow> = { updated_at: at };
  const token = input.signals.visitor_token;
  if (device.recognised) {
    // Recognised by its fingerprint, not by its token: the components are anyone's who ran a script on a page the user
    // visited, so nothing the request says is written on the device (its place, its token, a pending logout spent). The
    // token moves once the backend vouches for the evaluation (store/history.ts, confirmDevice), and the next request
    // on it is the device's own. Until then the token is only remembered as one the device was recognised on, so that
    // the same browser is recognised again, drifted or not (store/devices.ts, byToken).
    if (token && row.recognised_token !== token) patch.recognised_token = token;
    // Its fingerprint follows the browser as on a device of its own token: a drift of the device's browser that another
    // live token's device held the record back from (identical components there) has a record of its own, and the
    // device takes it, as the record would have moved. Else the next request on this token compares with the record
    // the browser left, and a browser that then loses this token too is not found by its components.
    if (identity.follows === row.id && fp && row.fingerprint_id !== fp.row.id) patch.fingerprint_id = fp.row.id;
    if (user && joins && row.logout_pending !== 1 && (row.user_id !== user.id || row.status === "detached"))
      Object.assign(patch, { user_id: user.id, status: "attached", attached_at: at, detached_at: null });
  } else {
    Object.assign(patch, { last_seen_at: at, last_ip: input.ip ?? row.last_ip });
    if (fp && row.fingerprint_id !== fp.row.id) patch.fingerprint_id = fp.row.id;
    // A device found by the token it carried before (a private window's, vouched for since) carries the token in use
    // and keeps the other: the normal windows come back with the previous one and swap them again.
    if (token && (!row.visitor_token || (device.retoken && row.visitor_token !== token)))
      Object.assign(patch, { visitor_token: token, previous_token: row.visitor_token });
    if (row.status === "detached" && row.logout_pending === 1) {
      // Kicked since it last asked: tell the SDK to log out once; a later login re-attaches it.
      logout = true;
      patch.logout_pending = 0;
    } else if (user && joins && (row.user_id !== user.id || row.status === "detached")) {
      Object.assign(patch, { user_id: user.id, status: "attached", attached_at: at, detached_at: null });
    }
  }
  await repos.devices.update(row.id, patch);
  Object.assign(row, patch);
  return { logout };
}
