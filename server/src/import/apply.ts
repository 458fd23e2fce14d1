// Applies the rows of `tessera import` (import/formats.ts) to one environment through the functions the API uses — the
// users service, the lists and policies repositories with the API's own checks — so an import writes exactly what the
// same calls over HTTP would. Idempotent: a row that finds its object as the file has it writes nothing ("skipped",
// unchanged), so a second run changes nothing. A dry run does the same work in one transaction rolled back at the end:
// its report is the real one, and nothing is kept. Each change is written to the audit log (actor `cli`).
import type { PolicyCreateRequest } from "@tessera/sdk/contract";
import { checkReturnUrls } from "../challenges/return-urls.js";
import type { Config } from "../config.js";
import { checkContacts } from "../delivery/addresses.js";
import type { UsersService } from "../domain/users.js";
import { ApiError } from "../errors.js";
import { newId } from "../ids.js";
import { ensureDefaultPolicies } from "../policies/index.js";
import { isTestList } from "../policies/test-mode.js";
import { validatePolicy } from "../policies/validate.js";
import { normaliseListValue } from "../store/lists.js";
import { type PolicyInput, ruleChanged } from "../store/policies.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { toWirePolicy } from "../wire/policies.js";
import type { ImportRows, ListImport, PolicyImport, Row, UserImport } from "./formats.js";

export type Outcome = "created" | "updated" | "skipped" | "invalid";

export interface RowResult {
  kind: "user" | "list" | "policy";
  where: string;
  /** The object's id: the user id, the list id, the policy key. */
  id?: string;
  outcome: Outcome;
  /** Why a row was skipped or invalid (`field: what is wrong` for an invalid one). */
  reason?: string;
}

export interface ImportReport {
  dryRun: boolean;
  totals: Record<"users" | "lists" | "policies", Record<Outcome, number>>;
  /** Values added to lists, over all list rows. */
  listValuesAdded: number;
  rows: RowResult[];
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Called after every batch with the rows done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Who the audit log names (default `tessera import`). */
  actor?: string;
}

/** Rows applied per transaction: a commit per row would make a 100,000-user import take minutes on the embedded store. */
const BATCH = 200;
/** The lists API takes 500 values a call; an import adds a long list in calls of that size. */
const LIST_CHUNK = 500;

class RolledBack extends Error {}

const problemText = (p: { field: string; message: string }) => `${p.field}: ${p.message}`;

/** An API error (a bad contact, a policy the validator refuses) as a row's reason; anything else is not the row's fault. */
function reasonOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.param ?? "(row)"}: ${error.message}`;
  throw error;
}

type Step = () => Promise<void>;

export async function applyImport(
  services: { config: Config; repos: Repos; users: UsersService },
  env: EnvironmentRecord,
  input: ImportRows,
  opts: ImportOptions = {},
): Promise<ImportReport> {
  const { repos } = services;
  const dryRun = opts.dryRun === true;
  const actor = opts.actor ?? "tessera import";
  const ownOrigin = new URL(services.config.publicUrl).origin;
  const empty = (): Record<Outcome, number> => ({ created: 0, updated: 0, skipped: 0, invalid: 0 });
  const report: ImportReport = { dryRun, totals: { users: empty(), lists: empty(), policies: empty() }, listValuesAdded: 0, rows: [] };
  const total = input.users.length + input.lists.length + input.policies.length;
  const plural = { user: "users", list: "lists", policy: "policies" } as const;
  const record = (r: RowResult) => {
    report.rows.push(r);
    report.totals[plural[r.kind]][r.outcome]++;
  };

  const audit = async (action: string, targetType: string, targetId: string, before: unknown, after: unknown) => {
    await repos.auditLog.insert({
      id: newId("aud"),
      project_id: env.projectId,
      environment_id: env.id,
      actor_type: "cli",
      actor_id: null,
      actor_label: actor,
      action,
      target_type: targetType,
      target_id: targetId,
      before: before === undefined ? null : JSON.stringify(before),
      after: after === undefined ? null : JSON.stringify(after),
      status: 200,
      ip: null,
      created_at: Date.now(),
    });
  };

  const userStep =
    (row: Row<UserImport>): Step =>
    async () => {
      if (!row.value)
        return record({
          kind: "user",
          where: row.where,
          outcome: "invalid",
          reason: problemText(row.problem ?? { field: "(row)", message: "invalid" }),
        });
      const { id, update } = row.value;
      try {
        checkContacts(update);
        const outcome = await services.users.update(env.id, id, update);
        if (outcome === "unchanged") return record({ kind: "user", where: row.where, id, outcome: "skipped", reason: "unchanged" });
        await audit("user.update", "user", id, undefined, update);
        record({ kind: "user", where: row.where, id, outcome });
      } catch (error) {
        record({ kind: "user", where: row.where, id, outcome: "invalid", reason: reasonOf(error) });
      }
    };

  const listStep =
    (row: Row<ListImport>): Step =>
    async () => {
      if (!row.value)
        return record({
          kind: "list",
          where: row.where,
          outcome: "invalid",
          reason: problemText(row.problem ?? { field: "(row)", message: "invalid" }),
        });
      const { id, values, comment, ttl } = row.value;
      if (env.name !== "development" && isTestList(id))
        return record({
          kind: "list",
          where: row.where,
          id,
          outcome: "invalid",
          reason: `id: ${id} is a test-mode list, for development environments only`,
        });
      const wanted = [...new Set(values.map(normaliseListValue))];
      const existing = await repos.lists.count(env.id, id);
      let added = 0;
      for (let i = 0; i < wanted.length; i += LIST_CHUNK) {
        const chunk = wanted.slice(i, i + LIST_CHUNK);
        const live = await repos.lists.liveValues(env.id, id, chunk);
        const missing = chunk.filter((v) => !live.has(v));
        if (missing.length === 0) continue;
        await repos.lists.add(env.id, id, missing, { comment: comment ?? "imported", ttlSeconds: ttl });
        added += missing.length;
      }
      report.listValuesAdded += added;
      if (added === 0) return record({ kind: "list", where: row.where, id, outcome: "skipped", reason: "unchanged" });
      await audit("list.add", "list", id, undefined, { values: wanted.length > 20 ? `${added} values` : wanted, comment, ttl });
      record({ kind: "list", where: row.where, id, outcome: existing === 0 ? "created" : "updated" });
    };

  let defaultsEnsured = false;
  const policyStep =
    (row: Row<PolicyImport>): Step =>
    async () => {
      if (!row.value)
        return record({
          kind: "policy",
          where: row.where,
          outcome: "invalid",
          reason: problemText(row.problem ?? { field: "(row)", message: "invalid" }),
        });
      const { key, environment, ...policy } = row.value;
      if (environment && environment !== env.name)
        return record({ kind: "policy", where: row.where, id: key, outcome: "skipped", reason: `for the ${environment} environment` });
      try {
        validatePolicy(policy as PolicyCreateRequest);
        checkReturnUrls(env, policy.challenge, ownOrigin);
      } catch (error) {
        return record({ kind: "policy", where: row.where, id: key, outcome: "invalid", reason: reasonOf(error) });
      }
      // As POST /v3/policies: the environment's defaults exist before the first policy of its own (not on a dry run:
      // the seeding is remembered per process, and a rolled-back one would be taken as done).
      if (!defaultsEnsured && !dryRun) await ensureDefaultPolicies(repos, env);
      defaultsEnsured = true;
      const input = policy as PolicyInput;
      const sourceKey = `import:${key}`;
      const found = await repos.policies.findByKey(env.id, sourceKey);
      if (!found) {
        const created = await repos.policies.create(env.id, input, "import", sourceKey);
        await audit("policy.create", "policy", created.id, undefined, toWirePolicy(created, env.name));
        return record({ kind: "policy", where: row.where, id: key, outcome: "created" });
      }
      if (!ruleChanged(found, input)) return record({ kind: "policy", where: row.where, id: key, outcome: "skipped", reason: "unchanged" });
      const updated = await repos.policies.update(env.id, found.id, input);
      await audit("policy.update", "policy", found.id, toWirePolicy(found, env.name), updated && toWirePolicy(updated, env.name));
      record({ kind: "policy", where: row.where, id: key, outcome: "updated" });
    };

  const steps: Step[] = [...input.users.map(userStep), ...input.lists.map(listStep), ...input.policies.map(policyStep)];
  if (dryRun) {
    // One transaction for the whole run, rolled back: later rows see earlier ones, and nothing is kept.
    try {
      await repos.transaction(async () => {
        for (const [i, step] of steps.entries()) {
          await step();
          if ((i + 1) % BATCH === 0) opts.onProgress?.(i + 1, total);
        }
        throw new RolledBack();
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
    }
  } else {
    for (let i = 0; i < steps.length; i += BATCH) {
      await repos.transaction(async () => {
        for (const step of steps.slice(i, i + BATCH)) await step();
      });
      opts.onProgress?.(Math.min(i + BATCH, total), total);
    }
  }
  opts.onProgress?.(total, total);
  return report;
}
