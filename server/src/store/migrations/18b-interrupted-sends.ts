// Migration 18b (docs/operations.md): finds code sends a crash interrupted (challenges/recovery.ts) without scanning the
// challenges table: a partial index holds only the challenges whose delivery is still pending, a handful at any time.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("challenges_pending_delivery")
    .on("challenges")
    .column("last_sent_at")
    .where(sql.ref("delivery_status"), "=", "pending")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("challenges_pending_delivery").ifExists().execute();
}
