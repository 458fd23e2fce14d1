// The checks' registry (docs/detection.md, "How to add a check"): every check a policy may test, by family, one file
// per family under families/ (each check defined once there: checks/define.ts). Everything else about checks comes
// from this list: the evaluation's `checks` snapshot (computeChecks), the facts the pipeline loads (NEEDED_FACTS: only
// those some check needs), the familiarity dimensions trusted evaluations record (RECORDED_DIMENSIONS), the reasons a
// policy names (checkReason), and the type of check names (CheckName), which types the risk table and the default
// policies. The contract's catalogue (sdk/src/contract/checks.ts, browser-safe for the console's editor) must say the
// same names and types: checked here at compile time and in checks/registry.test.ts.
import type { CHECKS, ChecksSnapshot, Op } from "@tessera/sdk/contract";
import { dimensionsOf } from "../facts/familiarity.js";
import type { AnyFactProvider, LoadedFacts } from "../facts/index.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import type { CheckContext, CheckDefinition, CheckType } from "./define.js";
import * as accounts from "./families/accounts.js";
import * as attempts from "./families/attempts.js";
import * as bot from "./families/bot.js";
import * as churn from "./families/churn.js";
import * as content from "./families/content.js";
import * as email from "./families/email.js";
import * as familiarity from "./families/familiarity.js";
import * as farm from "./families/farm.js";
import * as identity from "./families/identity.js";
import * as lists from "./families/lists.js";
import * as network from "./families/network.js";
import * as sharing from "./families/sharing.js";
import * as travel from "./families/travel.js";
import * as velocity from "./families/velocity.js";

export { deviceLimitFor } from "./families/sharing.js";

/**
 * The families, in the order of the `checks` snapshot's keys and of the contract's catalogue (what the console lists).
 * Checks are pure and independent: the order decides nothing else.
 */
export const FAMILIES = {
  identity: identity.checks,
  familiarity: familiarity.checks,
  accounts: accounts.checks,
  attempts: attempts.checks,
  network: network.checks,
  churn: churn.checks,
  farm: farm.checks,
  travel: travel.checks,
  sharing: sharing.checks,
  velocity: velocity.checks,
  email: email.checks,
  bot: bot.checks,
  content: content.checks,
  lists: lists.checks,
} as const;

type Registered = (typeof FAMILIES)[keyof typeof FAMILIES][number];

/** Every registered check's name. */
export type CheckName = Registered["name"];

/** The registry as a catalogue: name → value type. */
export type Catalogue = { [C in Registered as C["name"]]: C["type"] };

// The contract's catalogue says exactly this (same names, same types): a difference fails type checking here.
type Contract = { -readonly [K in keyof typeof CHECKS]: (typeof CHECKS)[K] };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const catalogueMatchesContract: Same<Catalogue, Contract> = true;
void catalogueMatchesContract;

export const REGISTERED_CHECKS: readonly CheckDefinition[] = Object.values(FAMILIES).flat();

/** The providers the registered checks need, each once (the pipeline adds its own: facts/index.ts, loadFacts). */
export const NEEDED_FACTS: readonly AnyFactProvider[] = [...new Set<AnyFactProvider>(REGISTERED_CHECKS.flatMap((c) => c.needs))];

/** The ledger dimensions those facts read: what a trusted evaluation records (facts/familiarity.ts). */
export const RECORDED_DIMENSIONS = dimensionsOf(NEEDED_FACTS);

/** Every check of the registry, computed for one evaluation from its facts. */
export function computeChecks(
  input: EvaluationInput,
  identity: Identity,
  signals: SignalSet,
  facts: LoadedFacts,
  options: { deviceLimit: number; only?: ReadonlySet<string> },
): ChecksSnapshot {
  // One context for every check (derived values are kept per context: checks/define.ts, derived).
  const ctx: CheckContext = { input, identity, signals, facts: facts as CheckContext["facts"], deviceLimit: options.deviceLimit };
  // `only`: a page view of a known session computes the checks it re-checks, whose facts alone were loaded
  // (pipeline/page-view.ts).
  const only = options.only;
  const out = { ...snapshotShape(only) };
  for (const check of REGISTERED_CHECKS) if (!only || only.has(check.name)) out[check.name] = check.compute(ctx);
  return out;
}

/** The snapshot's keys for each set of checks computed (the registry's, or a page view's subset), keyed by that set. */
const SHAPES = new WeakMap<object, Readonly<ChecksSnapshot>>();

/**
 * An object holding the snapshot's keys in registry order (their values null), which computeChecks copies and fills:
 * the keys, their order and the values are those of a snapshot built key by key on an empty object. Built that way, its
 * hundred keys made V8 hold the snapshot as a dictionary, slow to fill, to copy (the policies read it with the risks
 * added) and to write as JSON; a copy of an object parsed from JSON keeps V8's fast layout
 * (docs/decisions/evaluation-allocations.md).
 */
function snapshotShape(only: ReadonlySet<string> | undefined): Readonly<ChecksSnapshot> {
  const key = only ?? REGISTERED_CHECKS;
  let shape = SHAPES.get(key);
  if (!shape) {
    const names = REGISTERED_CHECKS.filter((c) => !only || only.has(c.name)).map((c) => JSON.stringify(c.name));
    shape = JSON.parse(`{${names.map((n) => `${n}:null`).join(",")}}`) as ChecksSnapshot;
    SHAPES.set(key, shape);
  }
  return shape;
}

const BY_NAME = new Map<string, CheckDefinition>(REGISTERED_CHECKS.map((c) => [c.name, c]));

/** The definition of a registered check. */
export function checkDefinition(name: string): CheckDefinition | undefined {
  return BY_NAME.get(name);
}

/**
 * What a comparison of a check that held says in `reasons`, given the check's value (the rule by type: checks/define.ts,
 * Reason); undefined when it says nothing. List and risk comparisons are named by the policy engine (policies/engine.ts).
 */
export function checkReason(name: string, op: Op, value: ChecksSnapshot[string] | undefined): string | undefined {
  const def = BY_NAME.get(name);
  if (!def) return undefined;
  return reasonByType(def.type, def.reason as string | { false: string } | { low: string }, op, value);
}

function reasonByType(
  type: CheckType,
  reason: string | { false: string } | { low: string },
  op: Op,
  value: ChecksSnapshot[string] | undefined,
): string | undefined {
  switch (type) {
    case "boolean":
      if (typeof reason === "string") return value === true ? reason : undefined;
      return "false" in reason && value === false ? reason.false : undefined;
    case "number":
      if (typeof reason === "string") return op === "gt" || op === "gte" ? reason : undefined;
      return "low" in reason && (op === "lt" || op === "lte") ? reason.low : undefined;
    default:
      return (op === "eq" || op === "in") && typeof reason === "string" ? reason : undefined;
  }
}
