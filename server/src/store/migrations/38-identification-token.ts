// Migration 38 (identity is not trust, docs/identity.md "Recognition and trust"): the legacy identification of a
// browser recognised by its fingerprint rather than found by its visitor token keeps that token
// (`identifications.pending_token`), as an evaluation does (migration 27). Its completion is the backend's word for the
// account it names: the recognised device takes the token only when it is that account's own, and the answer says the
// device is new; for another account the browser is a device of its own, and the recognised one stays where it was
// (domain/devices.ts, completeIdentification). Null on every other identification and on the rows written before.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("identifications").addColumn("pending_token", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("identifications").dropColumn("pending_token").execute();
}
