// The policies of an environment as the evaluate step sees them: seeded with the defaults on first use, cached.

import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { type StoredPolicy, toWirePolicy } from "../wire/policies.js";
import { defaultPolicies } from "./defaults.js";
import { projectDeviceLimit } from "./device-limit.js";

/**
 * Defaults are seeded lazily, on the first evaluation or policy listing of an environment, rather than in
 * ProjectsRepo.create: projects made by any path (CLI, bootstrap, tests, a restored backup) get them, and the
 * once-only marker means a customer who deletes them does not see them come back. An environment seeded by an earlier
 * release gets this release's improved defaults in place of the ones nobody edited, at its first use by this process
 * (PoliciesRepo.upgradeDefaults): an edited or deleted default stays as the customer left it.
 */
const seededHere = new Set<string>();

export async function ensureDefaultPolicies(repos: Repos, env: EnvironmentRecord): Promise<void> {
  if (seededHere.has(env.id)) return;
  const defaults = defaultPolicies(projectDeviceLimit(env.settings));
  if (!(await repos.policies.seeded(env.id))) await repos.policies.seedOnce(env.id, defaults);
  else await repos.policies.upgradeDefaults(env.id, defaults);
  seededHere.add(env.id);
}

/** Parsed policies by the cached rows they came from: parsing JSON per evaluation showed in the profile. */
const parsed = new WeakMap<object, StoredPolicy[]>();

export async function policiesFor(repos: Repos, env: EnvironmentRecord): Promise<StoredPolicy[]> {
  await ensureDefaultPolicies(repos, env);
  const rows = await repos.policies.listCached(env.id);
  let policies = parsed.get(rows);
  if (!policies) {
    policies = rows.map((r) => toWirePolicy(r, env.name));
    parsed.set(rows, policies);
  }
  return policies;
}
