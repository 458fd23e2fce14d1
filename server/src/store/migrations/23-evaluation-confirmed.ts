// Migration 23 (trust boundary): which evaluations were the user's own.
// - `evaluations.confirmed`: 1 when someone other than the browser said so: the customer's backend consumed it while
//   it let the user in (the password was right), the backend sent it or signed its user id (`identity_verified`), or
//   the user passed its challenge.
// - `device_confirmations`: the devices on which a user has a confirmed evaluation. What such a device lets the user do
//   afterwards (the pages a signed-in laptop opens) is confirmed too when it is written, for as long as the device
//   stays: retention prunes evaluations, not this; detaching the device or erasing the user removes it.
// Trusted history (store/history.ts) reads only these: the client id is public, so a browser naming a user is not the
// user until then. Existing rows are filled in this migration's transaction: let in and consumed, let in with a signed
// or backend-named user (the stored checks), or with a passed challenge.
import { type Kysely, SqliteAdapter, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("evaluations")
    .addColumn("confirmed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const signed = sqlite
    ? sql.raw("json_extract(checks, '$.identity_verified') = 1")
    : sql.raw("(checks::jsonb -> 'identity_verified') = 'true'::jsonb");
  await sql`
    update evaluations set confirmed = 1
    where (verdict in ('allow', 'restrict') and (consumed = 1 or (checks is not null and ${signed})))
       or challenge_id in (select id from challenges where status in ('verified', 'completed'))`.execute(db);

  await db.schema
    .createTable("device_confirmations")
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("device_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("device_confirmations_pk", ["environment_id", "device_id", "user_id"])
    .execute();
  // Erasing a user deletes theirs.
  await db.schema.createIndex("device_confirmations_env_user").on("device_confirmations").columns(["environment_id", "user_id"]).execute();
  await sql`
    insert into device_confirmations (environment_id, device_id, user_id, created_at)
    select environment_id, device_id, user_id, min(created_at) from evaluations
    where confirmed = 1 and device_id is not null and user_id is not null
    group by environment_id, device_id, user_id`.execute(db);
  // What those devices let their user do after the first confirmed evaluation there.
  await sql`
    update evaluations set confirmed = 1
    where confirmed = 0 and verdict in ('allow', 'restrict') and exists (
      select 1 from device_confirmations d
      where d.environment_id = evaluations.environment_id and d.device_id = evaluations.device_id
        and d.user_id = evaluations.user_id and d.created_at <= evaluations.created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("device_confirmations").execute();
  await db.schema.alterTable("evaluations").dropColumn("confirmed").execute();
}
