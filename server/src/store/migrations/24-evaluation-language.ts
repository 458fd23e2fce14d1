// Migration 24 (detection rules): the browser's language on each evaluation, for `is_new_language`
// (store/history.ts, in the statement of numbers): whether the user was ever let in from a browser set to it. The
// canonical BCP 47 tag of navigator.language (signals/language.ts); null when the browser sent none. Rows written
// before it keep null: a user whose trusted evaluations all predate it has no language on record (the check is null,
// as for a new user) until their next trusted evaluation. No index, as for migration 22: asked per user, on the user's
// own rows (evaluations_env_user_time).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").addColumn("language", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").dropColumn("language").execute();
}
