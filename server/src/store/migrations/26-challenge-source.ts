// Migration 26 (budgets per source, docs/security.md): where each challenge came from, so that what is done later
// through its link (code sends, guesses) is charged to the budgets of the browser and network that raised it, and an
// attacker's challenges spend the attacker's budgets only (challenges/budgets.ts).
// - `source_key`: the browser that raised it — a hash of its visitor token, else of its device id ("backend" for a
//   backend's evaluation with neither); never the token itself.
// - `source_network`: that request's network as a per-source budget counts it (IPv4 /24, IPv6 /64); null without an
//   address.
// - `source_vouched`: 1 when the user's backend vouched for that browser (a device the user signed in on, a valid
//   user_token, or a backend's own evaluation): it has budgets of its own that no stranger's challenge spends.
// - `contact_only`: 1 when the challenge was raised only because the browser claimed contacts other than the stored
//   ones (without that claim the evaluation would not have been challenged): it never counts against another
//   browser's pending challenges.
// Challenges written before keep nulls and zeros: they count against no source's pending challenges and their links
// charge an unknown source; they expire within the link's lifetime (CHALLENGE_TOKEN_TTL, an hour by default).
// No index: the pending challenges of one user are read through challenges_env_user and filtered there.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("challenges").addColumn("source_key", "text").execute();
  await db.schema.alterTable("challenges").addColumn("source_network", "text").execute();
  await db.schema
    .alterTable("challenges")
    .addColumn("source_vouched", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("challenges")
    .addColumn("contact_only", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ["contact_only", "source_vouched", "source_network", "source_key"])
    await db.schema.alterTable("challenges").dropColumn(column).execute();
}
