// Migration 001: the core tables (schema in ../tables/core.ts).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("projects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("environments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull().unique())
    .addColumn("allowed_origins", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("environments_project_name", ["project_id", "name"])
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull().references("environments.id").onDelete("cascade"))
    .addColumn("hash", "text", (c) => c.notNull().unique())
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("revoked_at", "bigint")
    .execute();

  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("external_id", "text", (c) => c.notNull())
    .addColumn("email", "text")
    .addColumn("phone", "text")
    .addColumn("email_verified", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("phone_verified", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("groups", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("skip_challenge_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("converted_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("users_env_external", ["environment_id", "external_id"])
    .execute();

  await db.schema
    .createTable("fingerprints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("coarse_key", "text", (c) => c.notNull())
    .addColumn("exact_hash", "text", (c) => c.notNull())
    .addColumn("components", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("fingerprints_env_coarse").on("fingerprints").columns(["environment_id", "coarse_key"]).execute();
  await db.schema.createIndex("fingerprints_env_exact").on("fingerprints").columns(["environment_id", "exact_hash"]).execute();

  await db.schema
    .createTable("devices")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("visitor_token", "text")
    .addColumn("fingerprint_id", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("attached"))
    .addColumn("type", "text", (c) => c.notNull().defaultTo("computer"))
    .addColumn("info", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("attached_at", "bigint")
    .addColumn("detached_at", "bigint")
    .addColumn("logout_pending", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_seen_at", "bigint")
    .addColumn("last_ip", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("devices_env_user").on("devices").columns(["environment_id", "user_id"]).execute();
  await db.schema.createIndex("devices_env_token").on("devices").columns(["environment_id", "visitor_token"]).execute();
  await db.schema.createIndex("devices_env_fingerprint").on("devices").columns(["environment_id", "fingerprint_id"]).execute();

  await db.schema
    .createTable("evaluations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("verdict", "text", (c) => c.notNull())
    .addColumn("reasons", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("redirect", "text")
    .addColumn("user_id", "text")
    .addColumn("device_id", "text")
    .addColumn("fingerprint_id", "text")
    .addColumn("fingerprint_confidence", "double precision")
    .addColumn("access_id", "text")
    .addColumn("challenge_id", "text")
    .addColumn("ip", "text")
    .addColumn("country_code", "text")
    .addColumn("latitude", "double precision")
    .addColumn("longitude", "double precision")
    .addColumn("geolocation", "text")
    .addColumn("policy", "text")
    .addColumn("risks", "text")
    .addColumn("checks", "text")
    .addColumn("metadata", "text")
    .addColumn("consumed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("consumed_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("evaluations_env_user_time").on("evaluations").columns(["environment_id", "user_id", "created_at"]).execute();
  await db.schema.createIndex("evaluations_env_ip_time").on("evaluations").columns(["environment_id", "ip", "created_at"]).execute();
  await db.schema
    .createIndex("evaluations_env_fp_time")
    .on("evaluations")
    .columns(["environment_id", "fingerprint_id", "created_at"])
    .execute();
  await db.schema.createIndex("evaluations_time").on("evaluations").column("created_at").execute();

  await db.schema
    .createTable("access_records")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("device_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("confidence", "double precision", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("access_env_user_time").on("access_records").columns(["environment_id", "user_id", "created_at"]).execute();
  await db.schema
    .createIndex("access_env_device_time")
    .on("access_records")
    .columns(["environment_id", "device_id", "created_at"])
    .execute();
  await db.schema.createIndex("access_time").on("access_records").column("created_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    "access_records",
    "evaluations",
    "devices",
    "fingerprints",
    "users",
    "api_keys",
    "environments",
    "projects",
    "settings",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
