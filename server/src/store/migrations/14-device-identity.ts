// Migration 14 (issue 14, SPEC.md 13): device identity that holds on a real population.
// - fingerprints.popular: set once many tokens on many networks present a fingerprint (it stops linking accounts);
// - devices.previous_token: the token a device carried before a browser without its token was recognised as it (cleared
//   storage, a private window): either token keeps finding the device;
// - users.provisional: a user first seen on a login, until the customer's backend confirms it;
// - users.email_key: the normalised email an email-only evaluation identifies its account by (indexed);
// - login_attempts: logins naming provisional users, counted per device, fingerprint, IP and network;
// - every stored fingerprint's exact hash and coarse key recomputed: both now cover measured components only and
//   the coarse key names the GPU by its unmasked renderer, so an existing browser keeps matching exactly.
import type { Kysely } from "kysely";
import { coarseKey, exactHash, measuredComponents } from "../../fingerprint/index.js";
import { accountEmailKey } from "../../pipeline/account-email.js";
import { seedPlannerStatistics } from "./007-sqlite-planner-hints.js";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and regardless of) the typed schema.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("fingerprints")
    .addColumn("popular", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("devices").addColumn("previous_token", "text").execute();
  await db.schema.createIndex("devices_env_previous_token").on("devices").columns(["environment_id", "previous_token"]).execute();
  await db.schema
    .alterTable("users")
    .addColumn("provisional", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("users").addColumn("email_key", "text").execute();
  await db.schema.createIndex("users_env_email_key").on("users").columns(["environment_id", "email_key"]).execute();
  await db.schema.createIndex("users_provisional_created").on("users").columns(["provisional", "created_at"]).execute();
  await db.schema
    .createTable("login_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("device_key", "text")
    .addColumn("fingerprint_id", "text")
    .addColumn("ip", "text")
    .addColumn("network", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  for (const column of ["device_key", "fingerprint_id", "ip", "network"] as const) {
    await db.schema
      .createIndex(`login_attempts_env_${column}_time`)
      .on("login_attempts")
      .columns(["environment_id", column, "created_at"])
      .execute();
  }
  await db.schema.createIndex("login_attempts_time").on("login_attempts").column("created_at").execute();

  // Recompute in batches by id: a large store is not read into memory at once.
  let after = "";
  for (;;) {
    const rows: Array<{ id: string; components: string }> = await db
      .selectFrom("fingerprints")
      .select(["id", "components"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(500)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(row.components) as Record<string, unknown>;
      } catch {
        continue;
      }
      await db
        .updateTable("fingerprints")
        .set({ exact_hash: exactHash(parsed), coarse_key: coarseKey(measuredComponents(parsed)) })
        .where("id", "=", row.id)
        .execute();
    }
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  after = "";
  for (;;) {
    const rows: Array<{ id: string; email: string }> = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where("email", "is not", null)
      .where("id", ">", after)
      .orderBy("id")
      .limit(500)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows)
      await db
        .updateTable("users")
        .set({ email_key: accountEmailKey(row.email) })
        .where("id", "=", row.id)
        .execute();
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  await seedPlannerStatistics(db);
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("login_attempts").ifExists().execute();
  await db.schema.dropIndex("users_provisional_created").ifExists().execute();
  await db.schema.dropIndex("users_env_email_key").ifExists().execute();
  await db.schema.alterTable("users").dropColumn("email_key").execute();
  await db.schema.alterTable("users").dropColumn("provisional").execute();
  await db.schema.dropIndex("devices_env_previous_token").ifExists().execute();
  await db.schema.alterTable("devices").dropColumn("previous_token").execute();
  await db.schema.alterTable("fingerprints").dropColumn("popular").execute();
}
