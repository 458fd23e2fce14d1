// Migration 33 (the console's keys): when each secret key was last used, so that an operator can tell a key in use
// from a forgotten one before revoking it. Written by ProjectsRepo.environmentBySecret at most once a minute per key
// (store/projects.ts); null for a key not used since, and for every key until its first use after the upgrade.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("last_used_at", "bigint").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("last_used_at").execute();
}
