// Migration 35 (docs/storage.md, "What an evaluation writes"): `evaluations_time` (created_at alone; migration 001) is
// dropped. Its readers, retention's deletes and the hourly roll-ups, read each environment's evaluations through
// `evaluations_env_time_id` instead (store/user-data.ts pruneBefore, store/evaluation-stats.ts), one environment at a
// time. Each evaluation inserted an entry into it: on the embedded store a page written to the WAL per commit
// (1.1 frames of 4 KiB per evaluation when a batch holds one evaluation: bench/wal-pages.ts).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("evaluations_time").ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("evaluations_time").on("evaluations").column("created_at").execute();
}
