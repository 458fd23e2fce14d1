// The digest of a policy's rule as stored: what a default policy row is compared with to tell whether a customer edited
// it since it was written from a shipped default (migration 25, PoliciesRepo.upgradeDefaults). Stored digests depend on
// it: changing it needs a migration that recomputes them, or every default would look edited and stay as it is.
import { createHash } from "node:crypto";
import type { PoliciesTable } from "./tables/risk.js";

/** The stored fields that make up a policy's rule (the row's JSON columns as stored, so no re-serialisation). */
export type PolicyRule = Pick<
  PoliciesTable,
  "name" | "description" | "enabled" | "actions" | "priority" | "conditions" | "verdict" | "challenge"
>;

export function policyDigest(r: PolicyRule): string {
  const fields = [r.name, r.description, Number(r.enabled), r.actions, Number(r.priority), r.conditions, r.verdict, r.challenge];
  return createHash("sha256").update(JSON.stringify(fields)).digest("base64url");
}
