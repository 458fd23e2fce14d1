// Migration 27 (identity is not trust, docs/identity.md "Recognition and trust"): the tokens of browsers recognised by
// their fingerprint rather than found by their visitor token (cleared storage, a private window, or someone replaying
// the user's components). Such a request does not move the device's token.
// - `evaluations.pending_token`: the request's visitor token; once the customer's backend vouches for the evaluation
//   (consumes it while it let the user in, the user passes its challenge, a signed user id) the device takes it
//   (store/history.ts, confirmDevice). Null on every other evaluation and on the rows written before; no index: it is
//   read only with the row being confirmed.
// - `devices.recognised_token`: the latest token the device was recognised on, so that the same browser is recognised
//   again on its next request, drifted or not (a recognition, never a trust: store/devices.ts, byToken). Indexed as the
//   other two tokens are: it is looked up by value when a token carries no device.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").addColumn("pending_token", "text").execute();
  await db.schema.alterTable("devices").addColumn("recognised_token", "text").execute();
  await db.schema.createIndex("devices_env_recognised_token").on("devices").columns(["environment_id", "recognised_token"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("devices_env_recognised_token").ifExists().execute();
  await db.schema.alterTable("devices").dropColumn("recognised_token").execute();
  await db.schema.alterTable("evaluations").dropColumn("pending_token").execute();
}
