// Migration 003: challenges and the development outbox (schema in ../tables/challenges.ts).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("challenges")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("evaluation_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("device_id", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("channels", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("reasons", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("origin_url", "text")
    .addColumn("delivery_status", "text")
    .addColumn("delivery_error", "text")
    .addColumn("email_verified", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("phone_verified", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("verify_attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("send_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_sent_at", "bigint")
    .addColumn("code_hash", "text")
    .addColumn("code_channel", "text")
    .addColumn("code_expires_at", "bigint")
    .addColumn("signup_chosen_at", "bigint")
    .addColumn("converted_at", "bigint")
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("challenges_env_time").on("challenges").columns(["environment_id", "created_at"]).execute();
  await db.schema.createIndex("challenges_env_user").on("challenges").columns(["environment_id", "user_id", "status"]).execute();
  await db.schema.createIndex("challenges_env_device").on("challenges").columns(["environment_id", "device_id"]).execute();

  await db.schema
    .createTable("dev_outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("challenge_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("dev_outbox_env_time").on("dev_outbox").columns(["environment_id", "created_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("dev_outbox").ifExists().execute();
  await db.schema.dropTable("challenges").ifExists().execute();
}
