// Policy backtest (POST /v3/policies/backtest; docs/console.md): what a draft policy would have decided over the stored
// evaluations of a period. Each evaluation keeps the checks snapshot and risks its decision was made on, so the
// policy step (policies/engine.ts, the same code as live) runs again on them twice: with the environment's current
// policies, and with the draft added (or replacing the policy of its id). The answer counts the verdicts the draft
// changes, with examples. Lists are taken as they are now (their past contents are not kept). A run costs what its
// caller asks for, so it is bounded (docs/console.md "The backtest"): one at a time per operator, within
// BACKTEST_BUDGET_MS (past it the answer covers the evaluations examined so far and says so), and it gives the event
// loop back every YIELD_EVERY evaluations so that live evaluations keep flowing meanwhile.
import type { BacktestRequest, BacktestResult, ChecksSnapshot, Condition, Risk, Verdict } from "@tessera/sdk/contract";
import type { Config } from "../config.js";
import { ApiError, rateLimited } from "../errors.js";
import { evaluateCondition } from "../policies/conditions.js";
import { selectPolicy } from "../policies/engine.js";
import { policiesFor } from "../policies/index.js";
import { validatePolicy } from "../policies/validate.js";
import { loadRisks } from "../risks/index.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { iso } from "../time.js";
import type { StoredPolicy } from "../wire/policies.js";
import { RiskCheckReader } from "./stored-risk-checks.js";

/**
 * Evaluations judged between two turns of the event loop: about 10 µs each on a quiet machine and 80 µs on a loaded
 * one, so a live evaluation waits at most a few milliseconds behind a backtest, and the turns cost nothing measurable.
 */
export const YIELD_EVERY = 100;

/** One turn of the event loop: timers, I/O and other requests run before the caller goes on. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * At most one backtest at a time per caller (an operator's session, or a secret key), in this instance: a second one
 * while the first runs answers 429, because a caller's concurrent runs only divide the same budget and multiply the
 * load on everyone else's evaluations. 429 rather than 409: nothing is in the wrong state, the caller is asking too
 * much at once, and the same request succeeds once the first has answered (Retry-After: the budget).
 */
export class BacktestGate {
  private readonly running = new Set<string>();

  constructor(private readonly budgetMs: number) {}

  async run<T>(caller: string, backtest: () => Promise<T>): Promise<T> {
    if (this.running.has(caller))
      throw rateLimited(
        this.budgetMs / 1000,
        "A backtest of yours is still running: one runs at a time, so wait for its answer before starting another",
      );
    this.running.add(caller);
    try {
      return await backtest();
    } finally {
      this.running.delete(caller);
    }
  }
}

/** List entries held in memory for one run. */
const LIST_VALUES_CAP = 500_000;
const DEFAULT_PERIOD_MS = 7 * 24 * 3600 * 1000;
/** The checks whose value a list may hold (as the live policy step looks them up, checks/history.ts listValues). */
const NO_RISKS: Risk[] = [];
const LIST_CHECKS = ["user_id", "ip", "email", "email_domain", "phone", "fingerprint_id", "device_id", "ip_country"];

/** The risks a condition tests (`risk.<name>.score`, `risk.<name>.severity`). */
function risksOf(cond: Condition, out: Set<string>): Set<string> {
  if ("all" in cond) for (const c of cond.all) risksOf(c, out);
  else if ("any" in cond) for (const c of cond.any) risksOf(c, out);
  else if ("not" in cond) risksOf(cond.not, out);
  else if (cond.check.startsWith("risk.")) out.add(cond.check.split(".")[1]!);
  return out;
}

function listIdsOf(cond: Condition, out: Set<string>): Set<string> {
  if ("all" in cond) for (const c of cond.all) listIdsOf(c, out);
  else if ("any" in cond) for (const c of cond.any) listIdsOf(c, out);
  else if ("not" in cond) listIdsOf(cond.not, out);
  else if (cond.op === "in_list" || cond.op === "not_in_list") {
    for (const id of Array.isArray(cond.value) ? cond.value : [cond.value]) if (typeof id === "string") out.add(id);
  }
  return out;
}

/** list id → the checks whose snapshot value it holds, the map the policy engine tests in_list against. */
function memberships(checks: ChecksSnapshot, lists: Map<string, Set<string>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [id, values] of lists) {
    for (const check of LIST_CHECKS) {
      const v = checks[check];
      if (typeof v === "string" && values.has(v.trim().toLowerCase())) {
        const set = out.get(id) ?? new Set<string>();
        set.add(check);
        out.set(id, set);
      }
    }
  }
  // The snapshot's own in_list (lists held at the time) answers `in_list in_list …` as it was.
  const held = checks.in_list;
  if (Array.isArray(held)) for (const id of held) if (!out.has(id)) out.set(id, new Set());
  return out;
}

const byPriority = (a: StoredPolicy, b: StoredPolicy) =>
  b.priority - a.priority || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

export async function backtest(
  services: { config: Config; repos: Repos },
  env: EnvironmentRecord,
  req: BacktestRequest,
): Promise<BacktestResult> {
  const deadline = Date.now() + services.config.BACKTEST_BUDGET_MS;
  try {
    validatePolicy(req.policy);
  } catch (e) {
    if (e instanceof ApiError && e.param) throw new ApiError(e.status, e.code, e.message, `policy.${e.param}`);
    throw e;
  }
  const to = req.to ? Date.parse(req.to) : Date.now();
  const from = req.from ? Date.parse(req.from) : to - DEFAULT_PERIOD_MS;
  if (from >= to) throw new ApiError(400, "invalid_request", "from must be before to", "from");

  const current = await policiesFor(services.repos, env);
  const { id, environment: _e, ...fields } = req.policy;
  const stored = id === undefined ? undefined : current.find((p) => p.id === id);
  // A draft that switches an enabled policy off is judged without it: that is what saving it would do. Any other draft
  // is judged switched on, a disabled one included: the question is what it would do once enabled.
  const switchesOff = fields.enabled === false && stored?.enabled === true;
  const draft: StoredPolicy = {
    ...fields,
    id: id ?? "draft",
    environment: env.name,
    enabled: !switchesOff,
    createdAt: stored?.createdAt ?? iso(Date.now()),
    updatedAt: iso(Date.now()),
    source: "api",
  };
  const withDraft = [...current.filter((p) => p.id !== draft.id), draft].sort(byPriority);

  const listIds = new Set<string>();
  for (const p of withDraft) if (p.enabled) listIdsOf(p.conditions, listIds);
  const lists = await services.repos.lists.valuesOf(env.id, [...listIds], LIST_VALUES_CAP);

  const result: BacktestResult = {
    from: iso(from),
    to: iso(to),
    evaluated: 0,
    matched: 0,
    changed: 0,
    differs_from_stored: 0,
    transitions: [],
    examples: [],
    truncated: false,
    partial: false,
  };
  const transitions = new Map<string, { from: Verdict; to: Verdict; count: number }>();
  // Of an evaluation's risks only the checks of those the policies applying to its action test are read (see
  // stored-risk-checks.ts); the Risk objects, whose indicators name the reasons, are built for the examples alone.
  const riskReaders = new Map<string, RiskCheckReader>();
  const riskReaderFor = (action: string) => {
    let reader = riskReaders.get(action);
    if (!reader) {
      const names = new Set<string>();
      for (const p of withDraft) if (p.enabled && (p.actions.length === 0 || p.actions.includes(action))) risksOf(p.conditions, names);
      reader = new RiskCheckReader(names);
      riskReaders.set(action, reader);
    }
    return reader;
  };
  const exampleUsers: (string | null)[] = [];
  let cursor: { at: number; id: string } | undefined;
  // Evaluations read per query: enough that round trips do not count, few enough to bound memory (the store says).
  const batch = services.repos.evaluationSearch.scanBatch;
  const scan = (after: typeof cursor, n: number) => services.repos.evaluationSearch.scan(env.id, from, to, after, n);
  type Row = Awaited<ReturnType<typeof scan>>[number];
  /** One stored evaluation run with the current policies and with the draft, counted into the result. */
  const judge = (row: Row) => {
    const checks = row.checks ? (JSON.parse(row.checks) as ChecksSnapshot) : {};
    const held = memberships(checks, lists);
    // Into the parsed object: a spread into a new one cost ten times as much (56 µs against 6, measured).
    if (row.risks) riskReaderFor(row.action).read(row.risks, row.id, checks);
    const ctx = { checks, lists: held };
    // The reasons these runs name are not read (the risks they would take indicators from are not loaded): an
    // example runs its policies again with them.
    const now = selectPolicy(current, row.action, ctx, NO_RISKS);
    const matches = (draft.actions.length === 0 || draft.actions.includes(row.action)) && evaluateCondition(ctx, draft.conditions);
    const applies = draft.enabled && matches;
    // With the draft the outcome differs only where the draft matches ahead of the current winner, or where the
    // current winner is the policy the draft replaces: only those run the policies again.
    const rerun = (applies && (!now || byPriority(draft, now.policy) < 0)) || now?.policy.id === draft.id;
    const next = rerun ? selectPolicy(withDraft, row.action, ctx, NO_RISKS) : now;
    const currentVerdict: Verdict = now?.policy.verdict ?? "allow";
    const draftVerdict: Verdict = next?.policy.verdict ?? "allow";
    result.evaluated++;
    if (matches) result.matched++;
    if (currentVerdict !== row.verdict) result.differs_from_stored++;
    if (currentVerdict === draftVerdict) return;
    result.changed++;
    const key = `${currentVerdict}>${draftVerdict}`;
    const t = transitions.get(key) ?? { from: currentVerdict, to: draftVerdict, count: 0 };
    t.count++;
    transitions.set(key, t);
    if (result.examples.length < req.examples) {
      const risks = row.risks && !riskReaderFor(row.action).empty ? loadRisks(row.risks, row.id) : NO_RISKS;
      const reasons = next ? (selectPolicy(rerun ? withDraft : current, row.action, ctx, risks)?.reasons ?? []) : [];
      result.examples.push({
        evaluation: row.id,
        createdAt: iso(Number(row.created_at)),
        action: row.action,
        stored: row.verdict as Verdict,
        current: currentVerdict,
        draft: draftVerdict,
        reasons,
      });
      exampleUsers.push(row.user_id);
    }
  };
  let wanted = Math.min(batch, req.limit);
  let pending: ReturnType<typeof scan> | undefined = scan(undefined, wanted);
  let judgedSinceTurn = 0;
  let oldestJudged: number | undefined;
  scanning: while (pending) {
    const rows = await pending;
    pending = undefined;
    const last = rows.at(-1);
    if (last) cursor = { at: Number(last.created_at), id: last.id };
    // The next batch is read while this one is judged: on PostgreSQL the reading is the database's work, so the two
    // overlap (docs/console.md has the figures).
    const left = req.limit - result.evaluated - rows.length;
    if (last && rows.length === wanted && left > 0) {
      wanted = Math.min(batch, left);
      pending = scan(cursor, wanted);
    }
    for (const row of rows) {
      // Between two slices of judging, other requests run; past the budget, the evaluations judged so far are the
      // answer (at least one slice: a run always says something).
      if (judgedSinceTurn === YIELD_EVERY) {
        await nextTurn();
        judgedSinceTurn = 0;
        if (Date.now() >= deadline) {
          result.partial = true;
          // The page read ahead is not needed: its failure must not go unhandled.
          pending?.catch(() => undefined);
          break scanning;
        }
      }
      judge(row);
      judgedSinceTurn++;
      oldestJudged = Number(row.created_at);
    }
  }
  if (result.partial && oldestJudged !== undefined) result.examined_from = iso(oldestJudged);
  if (!result.partial && result.evaluated >= req.limit && cursor) {
    const more = await services.repos.evaluationSearch.scan(env.id, from, to, cursor, 1);
    result.truncated = more.length > 0;
  }
  const users = await services.repos.evaluationSearch.externalIds([...new Set(exampleUsers.filter((u): u is string => !!u))]);
  result.examples.forEach((e, i) => {
    const u = exampleUsers[i];
    if (u && users.has(u)) e.user = users.get(u);
  });
  result.transitions = [...transitions.values()].sort((a, b) => b.count - a.count);
  return result;
}
