// Repository of policies (docs/policies.md): CRUD per environment, a short per-process cache for the evaluate hot path,
// and the once-per-environment seeding marker for the default policies.
import type { Environment, Policy } from "@tessera/sdk/contract";
import type { Selectable } from "kysely";
import { ShortCache } from "../caches.js";
import { newId } from "../ids.js";
import { now } from "../time.js";
import { type PolicyRule, policyDigest } from "./policy-digest.js";
import type { PoliciesTable } from "./tables/risk.js";
import { Repository } from "./transactions.js";

export type PolicyRow = Selectable<PoliciesTable>;

/**
 * How long another instance's policy write may take to show here. Writes through this instance clear the cache at
 * once, so "create a policy, evaluate" always sees it on one instance.
 */
const CACHE_MS = 1000;

export type PolicyInput = Omit<Policy, "id" | "createdAt" | "updatedAt" | "environment">;

/** A policy's rule as its row stores it (the JSON columns serialised): what its digest is taken of. */
export function ruleOf(p: PolicyInput): PolicyRule {
  return {
    name: p.name,
    description: p.description ?? null,
    enabled: p.enabled ? 1 : 0,
    actions: JSON.stringify(p.actions),
    priority: p.priority,
    conditions: JSON.stringify(p.conditions),
    verdict: p.verdict,
    challenge: p.challenge ? JSON.stringify(p.challenge) : null,
  };
}

/** Whether `p` would change the rule `row` holds (an import that finds its policy as the file has it writes nothing). */
export function ruleChanged(row: PolicyRow, p: PolicyInput): boolean {
  return policyDigest(row) !== policyDigest(ruleOf(p));
}

export class PoliciesRepo extends Repository {
  private readonly cache = new ShortCache<PolicyRow[]>(CACHE_MS);

  private invalidate(environmentId: string): void {
    this.cache.invalidate(environmentId);
  }

  /** The environment's policies in the order they are tried: highest priority first (ties: oldest first). */
  private ordered(environmentId: string) {
    return this.db
      .selectFrom("policies")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .orderBy("priority", "desc")
      .orderBy("created_at", "asc")
      .orderBy("id", "asc");
  }

  /** Every policy of the environment, in the order they are tried. */
  async list(environmentId: string): Promise<PolicyRow[]> {
    return this.ordered(environmentId).execute();
  }

  /** One page of the list above, and how many there are in all. */
  async page(environmentId: string, page: number, limit: number): Promise<{ rows: PolicyRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.ordered(environmentId)
        .limit(limit)
        .offset((page - 1) * limit)
        .execute(),
      this.db
        .selectFrom("policies")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("environment_id", "=", environmentId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** The list above through the per-process cache (the evaluate hot path). */
  async listCached(environmentId: string): Promise<PolicyRow[]> {
    return this.cache.get(environmentId, () => this.list(environmentId));
  }

  async find(environmentId: string, id: string): Promise<PolicyRow | undefined> {
    return this.db.selectFrom("policies").selectAll().where("environment_id", "=", environmentId).where("id", "=", id).executeTakeFirst();
  }

  private values(environmentId: string, p: PolicyInput, source: string, sourceKey: string | null, t: number): PolicyRow {
    const rule = ruleOf(p);
    return {
      id: newId("pol"),
      environment_id: environmentId,
      ...rule,
      source,
      source_key: sourceKey,
      default_digest: source === "default" ? policyDigest(rule) : null,
      created_at: t,
      updated_at: t,
    };
  }

  async create(environmentId: string, p: PolicyInput, source = "api", sourceKey: string | null = null): Promise<PolicyRow> {
    const row = this.values(environmentId, p, source, sourceKey, now());
    await this.db.insertInto("policies").values(row).execute();
    this.invalidate(environmentId);
    return row;
  }

  async update(environmentId: string, id: string, patch: Partial<PolicyInput>): Promise<PolicyRow | undefined> {
    const set: Partial<PolicyRow> = { updated_at: now() };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.enabled !== undefined) set.enabled = patch.enabled ? 1 : 0;
    if (patch.actions !== undefined) set.actions = JSON.stringify(patch.actions);
    if (patch.priority !== undefined) set.priority = patch.priority;
    if (patch.conditions !== undefined) set.conditions = JSON.stringify(patch.conditions);
    if (patch.verdict !== undefined) set.verdict = patch.verdict;
    if (patch.challenge !== undefined) set.challenge = patch.challenge ? JSON.stringify(patch.challenge) : null;
    const res = await this.db
      .updateTable("policies")
      .set(set)
      .where("environment_id", "=", environmentId)
      .where("id", "=", id)
      .executeTakeFirst();
    this.invalidate(environmentId);
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.find(environmentId, id);
  }

  async delete(environmentId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom("policies").where("environment_id", "=", environmentId).where("id", "=", id).executeTakeFirst();
    this.invalidate(environmentId);
    return Number(res.numDeletedRows) > 0;
  }

  /** The policy with this source key (a config-file, default or imported policy). */
  async findByKey(environmentId: string, key: string): Promise<PolicyRow | undefined> {
    return this.db
      .selectFrom("policies")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("source_key", "=", key)
      .executeTakeFirst();
  }

  /** Creates or replaces the policy with this source key (config-file and default policies). */
  async upsertByKey(environmentId: string, key: string, p: PolicyInput, source: string): Promise<void> {
    const existing = await this.db
      .selectFrom("policies")
      .select("id")
      .where("environment_id", "=", environmentId)
      .where("source_key", "=", key)
      .executeTakeFirst();
    if (existing) await this.update(environmentId, existing.id, p);
    else await this.create(environmentId, p, source, key);
  }

  /** Every environment of every project (config-file policies apply to each). */
  async environments(): Promise<{ id: string; name: Environment }[]> {
    return this.db.selectFrom("environments").select(["id", "name"]).orderBy("created_at").execute();
  }

  /**
   * Replaces the default policies nobody edited with this release's defaults of the same key, where they differ: a
   * row whose rule still has the digest it was written with is the shipped default, untouched (an edit through the API
   * or the console changes the rule, and a row seeded before migration 25 that was ever updated has no digest).
   * An edited or deleted default is left as it is. Compare-and-set on the digest, so instances starting together
   * write it once. Returns the keys replaced.
   */
  async upgradeDefaults(environmentId: string, defaults: { key: string; policy: PolicyInput }[]): Promise<string[]> {
    const rows = await this.db
      .selectFrom("policies")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("source", "=", "default")
      .where("default_digest", "is not", null)
      .execute();
    const upgraded: string[] = [];
    for (const row of rows) {
      const next = defaults.find((d) => d.key === row.source_key);
      if (!next || policyDigest(row) !== row.default_digest) continue;
      const rule = ruleOf(next.policy);
      const digest = policyDigest(rule);
      if (digest === row.default_digest) continue;
      const res = await this.db
        .updateTable("policies")
        .set({ ...rule, default_digest: digest, updated_at: now() })
        .where("environment_id", "=", environmentId)
        .where("id", "=", row.id)
        .where("default_digest", "=", row.default_digest as string)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) > 0) upgraded.push(row.source_key as string);
    }
    if (upgraded.length) this.invalidate(environmentId);
    return upgraded;
  }

  /** Whether this environment's defaults were already seeded (once, ever). */
  async seeded(environmentId: string): Promise<boolean> {
    const r = await this.db
      .selectFrom("risk_environments")
      .select("environment_id")
      .where("environment_id", "=", environmentId)
      .executeTakeFirst();
    return r !== undefined;
  }

  /**
   * Seeds the defaults exactly once per environment: the marker insert decides who seeds when several requests
   * or instances race, and the policies are written in the same transaction.
   */
  async seedOnce(environmentId: string, defaults: { key: string; policy: PolicyInput }[]): Promise<boolean> {
    const seeded = await this.transactions.run(async () => {
      const res = await this.db
        .insertInto("risk_environments")
        .values({ environment_id: environmentId, defaults_seeded_at: now() })
        .onConflict((oc) => oc.column("environment_id").doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      for (const d of defaults) await this.create(environmentId, d.policy, "default", d.key);
      return true;
    });
    this.invalidate(environmentId);
    return seeded;
  }
}
