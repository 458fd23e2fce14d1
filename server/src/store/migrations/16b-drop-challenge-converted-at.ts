// Migration 16b (docs/storage.md): drops challenges.converted_at, a column written as null at every insert and never read
// (a conversion is recorded on the user, users.converted_at, and on the identification marker).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("challenges").dropColumn("converted_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("challenges").addColumn("converted_at", "bigint").execute();
}
