// Migration 002: the risk area's tables (schema in ../tables/risk.ts) and the indexes of the evaluate hot path.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("policies")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("actions", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("conditions", "text", (c) => c.notNull())
    .addColumn("verdict", "text", (c) => c.notNull())
    .addColumn("challenge", "text")
    .addColumn("source", "text", (c) => c.notNull().defaultTo("api"))
    .addColumn("source_key", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("policies_env_priority").on("policies").columns(["environment_id", "priority"]).execute();

  await db.schema
    .createTable("list_entries")
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("list_id", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("comment", "text")
    .addColumn("expires_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("list_entries_pk", ["environment_id", "list_id", "value"])
    .execute();
  // Evaluate asks "which lists hold any of these values": an index led by the value answers it without a scan.
  await db.schema.createIndex("list_entries_env_value").on("list_entries").columns(["environment_id", "value"]).execute();

  await db.schema
    .createTable("risk_environments")
    .addColumn("environment_id", "text", (c) => c.primaryKey())
    .addColumn("defaults_seeded_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("content_hashes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("content_hashes_env_hash_time")
    .on("content_hashes")
    .columns(["environment_id", "hash", "created_at"])
    .execute();
  await db.schema.createIndex("content_hashes_time").on("content_hashes").column("created_at").execute();

  // Hot-path lookups on core tables: "has this user been seen from this IP".
  await db.schema.createIndex("evaluations_env_user_ip").on("evaluations").columns(["environment_id", "user_id", "ip"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("evaluations_env_user_ip").ifExists().execute();
  for (const t of ["content_hashes", "risk_environments", "list_entries", "policies"]) await db.schema.dropTable(t).ifExists().execute();
}
