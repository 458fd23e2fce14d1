// Migration 13 (docs/security.md): settings of one environment (identity_verification: off | optional | required)
// and its identity secret, sealed under the server key (secrets.ts) because it must stay usable to verify HMACs.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("environments")
    .addColumn("settings", "text", (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
  await db.schema.alterTable("environments").addColumn("identity_secret", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("environments").dropColumn("identity_secret").execute();
  await db.schema.alterTable("environments").dropColumn("settings").execute();
}
