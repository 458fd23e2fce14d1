// Migration 25 (default policies that improve): which shipped default a policy row still holds, so that a
// release whose defaults improve can replace the ones a customer never edited (PoliciesRepo.upgradeDefaults) and leave
// alone every one they did. `default_digest` is the digest of the row's rule (policyDigest) as it was written from a
// default; a row whose rule no longer matches it was edited. Rows seeded before it: a default row never updated since
// it was created (created_at = updated_at: every write through the API or the console sets updated_at) gets the digest
// of what it holds now; an edited one keeps null and is never replaced.
//
// Frozen: the digest is copied below as it was when this migration shipped (store/policy-digest.ts), so the digests it
// wrote stay what PoliciesRepo.upgradeDefaults compared with then, whatever the live function becomes (a change to it
// needs a migration of its own, which recomputes them).
import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";

/** The stored fields that make up a policy's rule (the row's JSON columns as stored, so no re-serialisation). */
type Row = {
  id: string;
  name: string;
  description: string | null;
  enabled: number;
  actions: string;
  priority: number;
  conditions: string;
  verdict: string;
  challenge: string | null;
};

/** The digest of a policy's rule as stored (exported for frozen.test.ts, which pins it). */
export function policyDigest(r: Omit<Row, "id">): string {
  const fields = [r.name, r.description, Number(r.enabled), r.actions, Number(r.priority), r.conditions, r.verdict, r.challenge];
  return createHash("sha256").update(JSON.stringify(fields)).digest("base64url");
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("policies").addColumn("default_digest", "text").execute();
  const rows = await sql<Row>`
    SELECT id, name, description, enabled, actions, priority, conditions, verdict, challenge
    FROM policies WHERE source = 'default' AND created_at = updated_at`.execute(db);
  for (const r of rows.rows) await sql`UPDATE policies SET default_digest = ${policyDigest(r)} WHERE id = ${r.id}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("policies").dropColumn("default_digest").execute();
}
