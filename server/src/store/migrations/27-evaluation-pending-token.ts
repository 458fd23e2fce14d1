// Migration 27 (identity is not trust, docs/identity.md): the visitor token of an evaluation whose device was
// recognised by its fingerprint rather than found by that token (cleared storage, a private window, or someone replaying
// the user's components). The request does not move the device's token; once the customer's backend vouches for the
// evaluation (consumes it while it let the user in, or the user passes its challenge) the device takes this token
// (store/history.ts, confirmDevice), and the browser is the device's own from its next request. Null on every other
// evaluation, and on the rows written before: no index, it is read only with the row being confirmed.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").addColumn("pending_token", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").dropColumn("pending_token").execute();
}
