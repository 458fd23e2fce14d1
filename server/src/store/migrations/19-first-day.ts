// Migration 19 (a first day that works): a label per secret key (`tessera keys create --label`, the demo
// site's own key), the code of each dev-outbox message (the HTML outbox and GET /v3/dev/outbox show it as a field),
// and the CONFIG_FILE key of a webhook endpoint loaded from the config file (a restart updates it, never copies it).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("label", "text").execute();
  await db.schema.alterTable("dev_outbox").addColumn("code", "text").execute();
  await db.schema.alterTable("webhook_endpoints").addColumn("source_key", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("webhook_endpoints").dropColumn("source_key").execute();
  await db.schema.alterTable("dev_outbox").dropColumn("code").execute();
  await db.schema.alterTable("api_keys").dropColumn("label").execute();
}
