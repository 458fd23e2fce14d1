// Default policies that improve (docs/detection.md): an environment seeded by an earlier release gets this release's default in
// place of each default policy nobody edited; an edited one, a disabled one and a deleted one stay as the customer left
// them. Migration 25 marks the rows seeded before it that were never updated. On both stores.
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultPolicies } from "../src/policies/defaults.js";
import * as m25 from "../src/store/migrations/25-policy-default-digest.js";
import { policyDigest } from "../src/store/policy-digest.js";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";

describeStores("default policies across releases on %s", (kind) => {
  let t: TestApp;
  let envId: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    envId = t.project.environments.development.id;
    // Seeds the defaults (the first listing of the environment).
    const r = await t.app.inject({ method: "GET", url: "/v3/policies", headers: t.auth });
    expect(r.statusCode, r.body).toBe(200);
  });
  afterAll(async () => t?.close());

  const repos = () => t.services.repos;
  const db = () => t.services.store.db;
  const rowOf = async (key: string) =>
    db().selectFrom("policies").selectAll().where("environment_id", "=", envId).where("source_key", "=", key).executeTakeFirst();
  const shipped = (key: string) => {
    const d = defaultPolicies().find((x) => x.key === key);
    if (!d) throw new Error(`no default ${key}`);
    return d.policy;
  };

  /** What an earlier release seeded for this key: another rule, written with its own digest. */
  async function seededByEarlierRelease(key: string, priority: number): Promise<void> {
    const row = await rowOf(key);
    if (!row) throw new Error(`no row ${key}`);
    const older = { ...row, conditions: JSON.stringify({ check: "ip_is_tor", op: "eq", value: true }), priority };
    await db()
      .updateTable("policies")
      .set({ conditions: older.conditions, priority, default_digest: policyDigest(older) })
      .where("id", "=", row.id)
      .execute();
  }

  it("replaces the defaults nobody edited with this release's, and leaves edited, disabled and deleted ones alone", async () => {
    const keys = ["challenge-fingerprint-churn", "challenge-account-cycling", "challenge-repeat-trial", "restrict-disposable-email"];
    for (const [k, key] of keys.entries()) await seededByEarlierRelease(key, 100 + k);
    const idOf = async (key: string) => (await rowOf(key))?.id ?? "";
    const [untouched, edited, disabled, deleted] = (await Promise.all(keys.map(idOf))) as [string, string, string, string];

    // The customer raises one's priority, disables another and deletes the last, through the API.
    const patch = (id: string, payload: object) => t.app.inject({ method: "PATCH", url: `/v3/policies/${id}`, headers: t.auth, payload });
    expect((await patch(edited, { priority: 999 })).statusCode).toBe(200);
    expect((await patch(disabled, { enabled: false })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "DELETE", url: `/v3/policies/${deleted}`, headers: t.auth })).statusCode).toBe(200);

    const upgraded = await repos().policies.upgradeDefaults(envId, defaultPolicies());
    expect(upgraded).toEqual(["challenge-fingerprint-churn"]);

    const now = await rowOf("challenge-fingerprint-churn");
    expect(now?.id).toBe(untouched);
    expect(JSON.parse(now?.conditions ?? "null")).toEqual(shipped("challenge-fingerprint-churn").conditions);
    expect(Number(now?.priority)).toBe(shipped("challenge-fingerprint-churn").priority);
    // The evaluate path reads the upgraded rule at once on this instance (the cache was cleared).
    const listed = await t.app.inject({ method: "GET", url: `/v3/policies/${untouched}`, headers: t.auth });
    expect(listed.json().conditions).toEqual(shipped("challenge-fingerprint-churn").conditions);

    const kept = await rowOf("challenge-account-cycling");
    expect(Number(kept?.priority)).toBe(999);
    expect(JSON.parse(kept?.conditions ?? "null")).toEqual({ check: "ip_is_tor", op: "eq", value: true });
    const off = await rowOf("challenge-repeat-trial");
    expect(off?.enabled).toBe(0);
    expect(JSON.parse(off?.conditions ?? "null")).toEqual({ check: "ip_is_tor", op: "eq", value: true });
    expect(await rowOf("restrict-disposable-email")).toBeUndefined();

    // Once is enough: a second start finds nothing to replace.
    expect(await repos().policies.upgradeDefaults(envId, defaultPolicies())).toEqual([]);
  });

  it("migration 25 marks a default seeded before it as the shipped one only if it was never updated", async () => {
    const fresh = await rowOf("deny-bots");
    const touched = await rowOf("deny-fake-accounts");
    if (!fresh || !touched) throw new Error("defaults missing");
    await db()
      .updateTable("policies")
      .set({ updated_at: Number(touched.created_at) + 1000 })
      .where("id", "=", touched.id)
      .execute();
    // The store as the release before left it: no column, then the migration.
    const untyped = db() as unknown as Kysely<unknown>;
    await m25.down(untyped);
    await m25.up(untyped);
    const digests = await sql<{ id: string; default_digest: string | null }>`
      SELECT id, default_digest FROM policies WHERE id IN (${fresh.id}, ${touched.id})`.execute(db());
    const byId = new Map(digests.rows.map((r) => [r.id, r.default_digest]));
    expect(byId.get(fresh.id)).toBe(policyDigest(fresh));
    expect(byId.get(touched.id)).toBeNull();
  });
});
