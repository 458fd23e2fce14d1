// Repository of access records (one per `access` evaluation or legacy identification): the legacy history.
import type { Kysely, Selectable } from "kysely";
import type { Database } from "./schema.js";
import type { AccessRecordsTable } from "./tables/core.js";

export type AccessRecordRow = Selectable<AccessRecordsTable>;

export class AccessRecordsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: AccessRecordRow, db: Kysely<Database> = this.db): Promise<void> {
    await db.insertInto("access_records").values(row).execute();
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
