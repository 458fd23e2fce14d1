// The wire device from its stored row (docs/server-api.md).
import type { Device } from "@tessera/sdk/contract";
import type { DeviceRow } from "../store/devices.js";
import { iso, isoOrUndefined } from "../time.js";

/** A device counts as actively connected when it was seen within this window. */
export const ACTIVE_WINDOW_MS = 15 * 60 * 1000;

export function toWireDevice(row: DeviceRow, userExternalId: string | undefined, at = Date.now()): Device {
  const d: Device = {
    id: row.id,
    status: row.status,
    type: row.type,
    info: JSON.parse(row.info) as Device["info"],
    metadata: JSON.parse(row.metadata) as Device["metadata"],
    actively_connected: row.status === "attached" && row.last_seen_at != null && at - row.last_seen_at < ACTIVE_WINDOW_MS,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (userExternalId) d.user = userExternalId;
  const attached = isoOrUndefined(row.attached_at);
  if (attached) d.attached_at = attached;
  const detached = isoOrUndefined(row.detached_at);
  if (detached) d.detached_at = detached;
  const seen = isoOrUndefined(row.last_seen_at);
  if (seen) d.last_seen_at = seen;
  if (row.last_ip) d.last_ip = row.last_ip;
  return d;
}
