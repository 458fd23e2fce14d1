// Migration 005: the shared rate-limit counters (schema in ../tables/rate-limits.ts). Used with PostgreSQL; the
// embedded store counts in memory (one process owns the file) but keeps the same schema.
// On PostgreSQL the table is UNLOGGED: counters need no durability (a crash forgets at most a minute of counts), and
// skipping the WAL and its fsync per hit made the limiter's upsert the costliest query of an evaluation otherwise.
import { type Kysely, PostgresAdapter, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("rate_limits")
    .$call((b) => (postgres ? b.modifyFront(sql`unlogged`) : b))
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("prev_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limits_expires").on("rate_limits").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_limits").ifExists().execute();
}
