// A policy as the wire has it (docs/server-api.md), from its stored row: what the API answers and what the
// policy engine evaluates (policies/index.ts caches these per environment).
import type { Environment, Policy, PolicyChallenge, Verdict } from "@tessera/sdk/contract";
import type { PolicyRow } from "../store/policies.js";
import { iso } from "../time.js";

/** A policy as stored, ready to evaluate: the wire object plus where it came from. */
export type StoredPolicy = Policy & { source: string; source_key?: string };

export function toWirePolicy(row: PolicyRow, environment: Environment): StoredPolicy {
  const p: StoredPolicy = {
    id: row.id,
    name: row.name,
    environment,
    enabled: row.enabled === 1,
    actions: JSON.parse(row.actions) as string[],
    priority: Number(row.priority),
    conditions: JSON.parse(row.conditions) as Policy["conditions"],
    verdict: row.verdict as Verdict,
    createdAt: iso(Number(row.created_at)),
    updatedAt: iso(Number(row.updated_at)),
    source: row.source,
  };
  if (row.description != null) p.description = row.description;
  if (row.challenge) p.challenge = JSON.parse(row.challenge) as PolicyChallenge;
  if (row.source_key) p.source_key = row.source_key;
  return p;
}
