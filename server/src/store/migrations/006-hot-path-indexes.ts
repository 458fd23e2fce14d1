// Migration 006: indexes the evaluation hot path needs, found by profiling `npm run bench` (docs/operations.md).
// Without them SQLite's planner (before ANALYZE has statistics) answered "which users used this visitor token"
// by walking every device of the environment through devices_env_user: 1–5 ms per evaluation at 20k devices and
// growing with the data. (environment_id, visitor_token, user_id) covers that query and keeps serving the
// token lookups of devices_env_token, which it replaces.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("devices_env_token_user").on("devices").columns(["environment_id", "visitor_token", "user_id"]).execute();
  await db.schema.dropIndex("devices_env_token").ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("devices_env_token").on("devices").columns(["environment_id", "visitor_token"]).execute();
  await db.schema.dropIndex("devices_env_token_user").ifExists().execute();
}
