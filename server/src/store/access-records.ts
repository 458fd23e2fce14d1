// Repository of access records (one per `access` evaluation or legacy identification, one per session window for the
// repeat page views of a known session): the legacy history.
import type { Selectable } from "kysely";
import { BoundedMap } from "../caches.js";
import { queueInsert, queueUpdate } from "./prepared.js";
import type { AccessRecordsTable } from "./tables/core.js";
import { Repository } from "./transactions.js";

export type AccessRecordRow = Selectable<AccessRecordsTable>;

/**
 * How long the repeat page views of a known session share one access record (its `created_at` the first view's, its
 * `updated_at` the latest's): the window in which a device counts as actively connected (wire/devices.ts). Counted
 * from the record's creation, so a record spans at most this long and retention, which prunes records by creation,
 * never deletes one a view still points to.
 */
export const SESSION_RECORD_MS = 15 * 60 * 1000;
/** Sessions remembered at most (a busy instance's signed-in browsers of the last minutes); the oldest go first. */
const SESSIONS_KEPT = 50_000;

export class AccessRecordsRepo extends Repository {
  /** The access record of each device's current session, by environment and device, as this process wrote it. */
  readonly #sessions = new BoundedMap<string, { id: string; user: string | null; created: number }>(SESSIONS_KEPT);

  async insert(row: AccessRecordRow): Promise<void> {
    await queueInsert(this.db, "access_records", row);
  }

  /**
   * The access record of a page view: a repeat view of a known session (pipeline/page-view.ts: the device's own
   * visitor token, signed in) within SESSION_RECORD_MS of the record this process opened for the same device and user
   * only moves that record's `updated_at`, and its evaluation names that record; any other view opens a record. Each
   * PostgreSQL instance keeps its own sessions (a browser served by two opens two records per window). Answers the
   * record's id.
   */
  async recordView(row: AccessRecordRow, repeatView: boolean): Promise<string> {
    const key = `${row.environment_id}:${row.device_id}`;
    const open = this.#sessions.get(key);
    if (
      repeatView &&
      open &&
      open.user === row.user_id &&
      row.created_at >= open.created &&
      row.created_at - open.created < SESSION_RECORD_MS
    ) {
      await queueUpdate(this.db, "access_records", open.id, { updated_at: row.created_at });
      return open.id;
    }
    await this.insert(row);
    if (repeatView)
      this.transactions.afterCommit(() => {
        // Deleted first, so a session opened anew counts as the newest.
        this.#sessions.delete(key);
        this.#sessions.set(key, { id: row.id, user: row.user_id, created: row.created_at });
      });
    return row.id;
  }

  /** A page of records, newest first, filtered by user (service id) and/or device. */
  async page(
    environmentId: string,
    filter: { userId?: string; deviceId?: string },
    page: number,
    per: number,
  ): Promise<{ rows: AccessRecordRow[]; total: number }> {
    let base = this.db.selectFrom("access_records").where("environment_id", "=", environmentId);
    if (filter.userId) base = base.where("user_id", "=", filter.userId);
    if (filter.deviceId) base = base.where("device_id", "=", filter.deviceId);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(per)
        .offset((page - 1) * per)
        .execute(),
      base.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }
}
