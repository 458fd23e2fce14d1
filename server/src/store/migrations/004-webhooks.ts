// Migration 004: webhook endpoints, the outbox (events + deliveries), identifications, conversion markers
// (schema in ../tables/webhooks.ts).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("disabled_reason", "text")
    .addColumn("consecutive_failures", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhook_endpoints_env").on("webhook_endpoints").column("environment_id").execute();

  await db.schema
    .createTable("webhook_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhook_events_time").on("webhook_events").column("created_at").execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("endpoint_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint")
    .addColumn("lease_until", "bigint")
    .addColumn("lease_owner", "text")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("delivered_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // The claim query scans due pending deliveries in due order.
  await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["status", "next_attempt_at"]).execute();
  await db.schema.createIndex("webhook_deliveries_endpoint").on("webhook_deliveries").columns(["endpoint_id", "created_at"]).execute();

  await db.schema
    .createTable("identifications")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("device_id", "text", (c) => c.notNull())
    .addColumn("fingerprint_id", "text")
    .addColumn("confidence", "double precision", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("access_id", "text")
    .addColumn("new_device", "integer")
    .addColumn("completed_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("identifications_time").on("identifications").column("created_at").execute();

  await db.schema
    .createTable("conversion_markers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("device_id", "text", (c) => c.notNull())
    .addColumn("from_user_id", "text")
    .addColumn("challenge_id", "text")
    .addColumn("converted_user_id", "text")
    .addColumn("converted_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversion_markers_device").on("conversion_markers").columns(["environment_id", "device_id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["conversion_markers", "identifications", "webhook_deliveries", "webhook_events", "webhook_endpoints"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
