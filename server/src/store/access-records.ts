// Repository of access records (one per `access` evaluation or legacy identification): the legacy history.
import type { Selectable } from "kysely";
import { queueInsert } from "./prepared.js";
import type { AccessRecordsTable } from "./tables/core.js";
import { Repository } from "./transactions.js";

export type AccessRecordRow = Selectable<AccessRecordsTable>;

export class AccessRecordsRepo extends Repository {
  async insert(row: AccessRecordRow): Promise<void> {
    await queueInsert(this.db, "access_records", row);
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
