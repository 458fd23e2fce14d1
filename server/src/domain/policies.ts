// Policies service (the /v3/policies routes): an environment's policies, its defaults seeded on first use, each write
// validated beyond its schema (known checks, value types, a challenge for a challenge verdict: policies/validate.ts)
// and its return URLs held to the environment's allowed origins.
import type { Policy, PolicyCreateRequest, PolicyPatchRequest } from "@tessera/sdk/contract";
import { checkReturnUrls } from "../challenges/return-urls.js";
import type { Config } from "../config.js";
import { badRequest, notFound } from "../errors.js";
import { ensureDefaultPolicies } from "../policies/index.js";
import { validatePolicy } from "../policies/validate.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { type StoredPolicy, toWirePolicy } from "../wire/policies.js";

/** The wire policy without the store's bookkeeping (source, source key). */
function wire(p: StoredPolicy): Policy {
  const { source: _s, source_key: _k, ...rest } = p;
  return rest;
}

/** A key acts in its own environment: a body naming another is refused. */
function checkEnvironment(env: EnvironmentRecord, named: string | undefined): void {
  if (named && named !== env.name) throw badRequest(`This key belongs to the ${env.name} environment`, "environment");
}

export class PoliciesService {
  private readonly ownOrigin: string;

  constructor(
    private readonly repos: Repos,
    config: Pick<Config, "publicUrl">,
  ) {
    this.ownOrigin = new URL(config.publicUrl).origin;
  }

  async page(env: EnvironmentRecord, page: number, limit: number): Promise<{ data: Policy[]; total: number; page: number; limit: number }> {
    await ensureDefaultPolicies(this.repos, env);
    const { rows, total } = await this.repos.policies.page(env.id, page, limit);
    return { data: rows.map((r) => wire(toWirePolicy(r, env.name))), total, page, limit };
  }

  async create(env: EnvironmentRecord, b: PolicyCreateRequest): Promise<Policy> {
    checkEnvironment(env, b.environment);
    validatePolicy(b);
    checkReturnUrls(env, b.challenge, this.ownOrigin);
    await ensureDefaultPolicies(this.repos, env);
    const row = await this.repos.policies.create(env.id, { ...b });
    return wire(toWirePolicy(row, env.name));
  }

  async get(env: EnvironmentRecord, id: string): Promise<Policy> {
    const row = await this.repos.policies.find(env.id, id);
    if (!row) throw notFound("Policy");
    return wire(toWirePolicy(row, env.name));
  }

  /** Only the fields sent change; the result is validated as a whole, like a new policy. */
  async update(env: EnvironmentRecord, id: string, b: PolicyPatchRequest): Promise<Policy> {
    const existing = await this.repos.policies.find(env.id, id);
    if (!existing) throw notFound("Policy");
    checkEnvironment(env, b.environment);
    validatePolicy(b, toWirePolicy(existing, env.name));
    checkReturnUrls(env, b.challenge, this.ownOrigin);
    const { environment: _e, ...patch } = b;
    const row = await this.repos.policies.update(env.id, id, patch);
    if (!row) throw notFound("Policy");
    return wire(toWirePolicy(row, env.name));
  }

  async delete(env: EnvironmentRecord, id: string): Promise<void> {
    if (!(await this.repos.policies.delete(env.id, id))) throw notFound("Policy");
  }
}
