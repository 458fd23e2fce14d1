// Migration 22 (detection rules): the browser's time zone on each evaluation, for `is_new_timezone`
// (store/history.ts, in the statement of numbers): whether the user was ever let in from a browser set to this zone.
// The canonical IANA name of a place (signals/timezone.ts); null when the browser sent none, an unknown one, UTC or an
// Etc/ offset. Rows written before it keep null: a user whose trusted evaluations all predate it has no zone on record
// (the check is null, as for a new user) until their next trusted evaluation. No index: asked per user, on the user's
// own rows (evaluations_env_user_time), as migrations 15 and 21 are.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").addColumn("timezone", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").dropColumn("timezone").execute();
}
