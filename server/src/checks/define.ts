// A check (docs/detection.md, "How to add a check"): a named fact about one evaluation that a policy may test, with
// its type, what it means (`doc`), what it says in an evaluation's `reasons` (`reason`), the facts it reads from the
// store (`needs`: fact providers, server/src/facts/) and how it is computed from them and the request's signals. Each
// is defined once, in the file of its family (checks/families/*.ts); the registry (checks/index.ts) lists the families,
// and the contract's catalogue of names and types (sdk/src/contract/checks.ts), the policy engine's reasons and the
// risk table's check names are derived from it or checked against it (checks/registry.test.ts).

import type { AnyFactProvider, FactsOf } from "../facts/define.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";

export type CheckType = "boolean" | "number" | "string" | "string[]";

/** The value a check of this type computes; null when it is unknown (no user, no browser, no place: docs/detection.md). */
export type CheckValue<T extends CheckType> = T extends "boolean"
  ? boolean
  : T extends "number"
    ? number
    : T extends "string"
      ? string
      : string[];

/** What a check reads: the request, its identity, its signals, and the facts it needs. */
export interface CheckContext<F extends readonly AnyFactProvider[] = readonly []> {
  input: EvaluationInput;
  identity: Identity;
  signals: SignalSet;
  facts: FactsOf<F>;
  /** The device limit of the account-sharing policy that applies to this evaluation (families/sharing.ts, deviceLimitFor). */
  deviceLimit: number;
}

/**
 * What a comparison that held says in `reasons` (policies/engine.ts), by the check's type. A comparison that holds
 * because something is absent, or merely known, explains nothing and says nothing (`is_new_user eq false`,
 * `ip_is_anonymous eq false`, `ip_user_count lte 1`, `is_new_country exists false`, `device_type not_in [...]`):
 * - boolean: the reason is named when the check is true (`ne false` on a null check says nothing); a check whose
 *   telling value is false names it `{ false: "…" }` (timezone_in_ip_country);
 * - number: named by a lower bound that held (`gt`, `gte`: the count, the distance, the score is high); a check whose
 *   telling values are low names it `{ low: "…" }`, named by an upper bound (`lt`, `lte`: a day-old account);
 * - string and string[]: named by a comparison that matched a value (`eq`, `in`).
 * A list comparison names its lists (`in_list:<id>`), a risk comparison its indicators, whatever the check.
 */
export type Reason<T extends CheckType> = T extends "boolean"
  ? string | { false: string }
  : T extends "number"
    ? string | { low: string }
    : string;

export interface CheckDefinition<N extends string = string, T extends CheckType = CheckType> {
  readonly name: N;
  readonly type: T;
  /** What it means, for whoever writes a policy (docs/detection.md has the decisions behind it). */
  readonly doc: string;
  readonly reason: Reason<T>;
  /** The fact providers it reads. */
  readonly needs: readonly AnyFactProvider[];
  // biome-ignore lint/suspicious/noExplicitAny: each definition reads its own facts (CheckContext<its needs>)
  readonly compute: (c: CheckContext<any>) => CheckValue<T> | null;
}

export function defineCheck<
  const N extends string,
  const T extends CheckType,
  const F extends readonly AnyFactProvider[] = readonly [],
>(def: {
  name: N;
  type: T;
  doc: string;
  reason: Reason<T>;
  needs?: F;
  compute: (c: CheckContext<F>) => CheckValue<T> | null;
}): CheckDefinition<N, T> {
  return { ...def, needs: def.needs ?? [] } as CheckDefinition<N, T>;
}

/**
 * A value derived once per evaluation for several checks of a family (a device count, a journey): computed at the
 * first check that asks, kept for the others. `C` is the context it reads (the checks that ask need its facts).
 */
export function derived<C extends object, T>(compute: (c: C) => T): (c: C) => T {
  const values = new WeakMap<object, { v: T }>();
  return (c) => {
    const hit = values.get(c);
    if (hit) return hit.v;
    const v = compute(c);
    values.set(c, { v });
    return v;
  };
}
