// Migration 34 (docs/storage.md, "The evaluations' indexes"): fewer index entries written per evaluation, and the
// evaluation path's reads by IP answered from the index alone.
// - `evaluations_env_user_ip` (environment, user, IP; migration 002) is dropped: no statement reads it. Every one that
//   names a user reads `evaluations_env_user_time` (the same prefix), and the "new IP for this user" question has been
//   the familiarity ledger's since migration 30. It cost a b-tree insert, and a page made dirty, per evaluation.
// - `evaluations_env_ip_time` gives way to `evaluations_env_ip_time_users`, the same key with the user and fingerprint
//   after it: the users of an IP (store/user-lists.ts, the IP's users and the confirmed users at an IP) read only
//   these columns, which the old index sent to the table row (one b-tree descent each) for; the count of an IP's
//   evaluations and the console's search by IP read it as they read the old one.
import type { Kysely } from "kysely";
import { seedPlannerStatistics } from "./007-sqlite-planner-hints.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("evaluations_env_user_ip").ifExists().execute();
  await db.schema
    .createIndex("evaluations_env_ip_time_users")
    .on("evaluations")
    .columns(["environment_id", "ip", "created_at", "user_id", "fingerprint_id"])
    .execute();
  await db.schema.dropIndex("evaluations_env_ip_time").execute();
  // Embedded store: the new index's planner statistics until PRAGMA optimize measures them (as migration 007's).
  await seedPlannerStatistics(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("evaluations_env_ip_time").on("evaluations").columns(["environment_id", "ip", "created_at"]).execute();
  await db.schema.dropIndex("evaluations_env_ip_time_users").execute();
  await db.schema.createIndex("evaluations_env_user_ip").on("evaluations").columns(["environment_id", "user_id", "ip"]).execute();
}
