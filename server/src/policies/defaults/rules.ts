// The words the default policies are written in (docs/detection.md): one comparison per function, named after its
// operator, over registered checks only (a check that does not exist, or a value of another type, fails type checking),
// and `all`, `any`, `not` over them. They build the very condition objects a policy stores, key for key, so a default's
// rule and its digest (store/policy-digest.ts) are what they were when the rules were one code literal. A part of a
// tree may be given a name (`named`): the rendering for review shows it (defaults.test.ts); the stored rule does not.
import type { Comparison, Condition, PolicyChallenge, RiskCategory } from "@tessera/sdk/contract";
import type { CheckType, CheckValue } from "../../checks/define.js";
import type { Catalogue, CheckName } from "../../checks/index.js";
import type { PolicyInput } from "../../store/policies.js";

/** What a policy may test: a registered check, or a risk's derived score and severity. */
type Testable = CheckName | `risk.${RiskCategory}.score` | `risk.${RiskCategory}.severity`;
type TypeOf<K extends Testable> = K extends CheckName ? Catalogue[K] : K extends `risk.${string}.score` ? "number" : "string";
/** A value compared with one of the check's values (a list check holds strings). */
type Scalar<T extends CheckType> = T extends "string[]" ? string : CheckValue<T>;
type NumberCheck = { [K in Testable]: TypeOf<K> extends "number" ? K : never }[Testable];

const comparison = (check: Testable, op: Comparison["op"], value: Comparison["value"]): Comparison => ({ check, op, value });

export const eq = <K extends Testable>(check: K, value: Scalar<TypeOf<K>>): Comparison => comparison(check, "eq", value);
export const ne = <K extends Testable>(check: K, value: Scalar<TypeOf<K>>): Comparison => comparison(check, "ne", value);
export const gt = (check: NumberCheck, value: number): Comparison => comparison(check, "gt", value);
export const gte = (check: NumberCheck, value: number): Comparison => comparison(check, "gte", value);
export const lt = (check: NumberCheck, value: number): Comparison => comparison(check, "lt", value);
export const lte = (check: NumberCheck, value: number): Comparison => comparison(check, "lte", value);
export const isIn = <K extends Testable>(check: K, values: Array<Scalar<TypeOf<K>> & (string | number)>): Comparison =>
  comparison(check, "in", values);
export const notIn = <K extends Testable>(check: K, values: Array<Scalar<TypeOf<K>> & (string | number)>): Comparison =>
  comparison(check, "not_in", values);
/** `exists(check, false)`: the check is null, unknown (no user, no place…). */
export const exists = (check: Testable, known: boolean): Comparison => comparison(check, "exists", known);

export const all = (...conditions: Condition[]): Condition => ({ all: conditions });
export const any = (...conditions: Condition[]): Condition => ({ any: conditions });
export const not = (condition: Condition): Condition => ({ not: condition });

const LABEL = Symbol("label");

/** The condition, under a name the rendering shows (not stored: a symbol, which JSON leaves out). */
export function named<C extends Condition>(label: string, condition: C): C {
  Object.defineProperty(condition, LABEL, { value: label, enumerable: false });
  return condition;
}

/** The name `named` gave a part of a tree. */
export function labelOf(condition: Condition): string | undefined {
  return (condition as { [LABEL]?: string })[LABEL];
}

/** The challenge of every default challenge policy: a code by email, no skipping, 3 skips at most (if allowed). */
export function emailChallenge(type: PolicyChallenge["type"], extra: Pick<PolicyChallenge, "device_limit"> = {}): PolicyChallenge {
  return { type, channels: ["email"], require: "any", allow_skip: false, skip_limit: 3, ...extra };
}

/** What a default policy may depend on: the project's device limit (projectDeviceLimit). */
export interface DefaultsSettings {
  deviceLimit: number;
}

export interface DefaultPolicy {
  /** The row's stable key (source_key): how an upgrade finds the default it replaces (PoliciesRepo.upgradeDefaults). */
  key: string;
  policy(settings: DefaultsSettings): PolicyInput;
}

type Rule = Omit<PolicyInput, "enabled"> & { enabled?: boolean };

/** A default policy, enabled unless it says otherwise: its rule, or its rule for the project's settings. */
export function defaultPolicy(key: string, rule: Rule | ((settings: DefaultsSettings) => Rule)): DefaultPolicy {
  return { key, policy: (settings) => ({ enabled: true, ...(typeof rule === "function" ? rule(settings) : rule) }) };
}
