// Migration 18 (docs/operations.md): the velocity counters (schema in ../tables/velocity.ts). Counting the stored evaluations
// missed bursts on PostgreSQL: evaluations arriving together could not see each other's uncommitted rows. UNLOGGED on
// PostgreSQL, like the rate-limit counters: a crash forgets at most an hour of counts, and skipping the WAL keeps the
// upsert cheap on the evaluate path.
import { type Kysely, PostgresAdapter, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("velocity_counters")
    .$call((b) => (postgres ? b.modifyFront(sql`unlogged`) : b))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("bucket", "bigint", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("velocity_counters_pk", ["key", "bucket"])
    .execute();
  await db.schema.createIndex("velocity_counters_expires").on("velocity_counters").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("velocity_counters").ifExists().execute();
}
