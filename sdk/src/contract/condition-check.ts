// Validation of a policy's condition tree (docs/policies.md), one definition for the server (refusing a bad policy with a
// 400 naming the field) and the console's editor (live validation as the operator types): every check must exist
// in the catalogue, every value must have the check's type for its operator, and the tree stays small.
import { type CheckType, checkType } from "./checks.js";
import { CONDITION_MAX_VALUES, type Comparison, type Condition } from "./policy.js";

export const CONDITION_MAX_DEPTH = 12;
export const CONDITION_MAX_NODES = 500;

/** A problem with a condition: what is wrong, and where (`conditions.all.0.value`). */
export interface ConditionProblem {
  message: string;
  param: string;
}

function scalarType(t: CheckType): "boolean" | "number" | "string" {
  return t === "string[]" ? "string" : t;
}

function comparisonProblem(c: Comparison, at: string): ConditionProblem | undefined {
  const type = checkType(c.check);
  if (!type) return { message: `Unknown check "${c.check}"`, param: `${at}.check` };
  const v = c.value;
  const param = `${at}.value`;
  const typeName = scalarType(type);
  const isScalar = (x: unknown) => typeof x === typeName;
  if (Array.isArray(v) && v.length > CONDITION_MAX_VALUES)
    return {
      message: `${c.op} takes at most ${CONDITION_MAX_VALUES.toLocaleString("en")} values: keep a longer set in a list (in_list)`,
      param,
    };
  switch (c.op) {
    case "exists":
      return v !== undefined && typeof v !== "boolean" ? { message: "`exists` takes true, false or no value", param } : undefined;
    case "eq":
    case "ne":
      if (v === null || isScalar(v)) return undefined;
      return { message: `Check "${c.check}" is a ${type}; ${c.op} needs a ${typeName} value`, param };
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      if (type !== "number") return { message: `Check "${c.check}" is a ${type}; ${c.op} needs a number check`, param: `${at}.op` };
      return typeof v === "number" ? undefined : { message: `${c.op} needs a number value`, param };
    case "in":
    case "not_in":
      return Array.isArray(v) && v.length > 0 && v.every(isScalar)
        ? undefined
        : { message: `${c.op} needs a non-empty array of ${typeName} values`, param };
    case "in_list":
    case "not_in_list":
      if (type !== "string" && type !== "string[]") return { message: `${c.op} needs a string check`, param: `${at}.check` };
      if ((typeof v === "string" && v) || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string" && x)))
        return undefined;
      return { message: `${c.op} needs a list id or an array of list ids`, param };
  }
  return { message: `Unknown operator "${String(c.op)}"`, param: `${at}.op` };
}

/** The first problem of the tree in reading order, or undefined when it is valid. */
export function conditionProblem(cond: Condition, at = "conditions", depth = 0, count = { n: 0 }): ConditionProblem | undefined {
  if (depth > CONDITION_MAX_DEPTH) return { message: `Conditions nest deeper than ${CONDITION_MAX_DEPTH}`, param: at };
  if (++count.n > CONDITION_MAX_NODES) return { message: `Conditions have more than ${CONDITION_MAX_NODES} nodes`, param: at };
  if ("all" in cond) {
    for (const [i, c] of cond.all.entries()) {
      const p = conditionProblem(c, `${at}.all.${i}`, depth + 1, count);
      if (p) return p;
    }
    return undefined;
  }
  if ("any" in cond) {
    for (const [i, c] of cond.any.entries()) {
      const p = conditionProblem(c, `${at}.any.${i}`, depth + 1, count);
      if (p) return p;
    }
    return undefined;
  }
  if ("not" in cond) return conditionProblem(cond.not, `${at}.not`, depth + 1, count);
  return comparisonProblem(cond, at);
}
