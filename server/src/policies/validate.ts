// Validation of a policy on write (SPEC.md 6): every check must exist in the catalogue, every value must have the
// check's type for its operator, challenge verdicts need a challenge. Errors name the offending field.
import { type CheckType, type Comparison, type Condition, checkType, type PolicyChallenge, type Verdict } from "@tessera/sdk/contract";
import { badRequest } from "../errors.js";

const MAX_DEPTH = 12;
const MAX_NODES = 500;

function scalarType(t: CheckType): "boolean" | "number" | "string" {
  return t === "string[]" ? "string" : t;
}

function checkComparison(c: Comparison, at: string): void {
  const type = checkType(c.check);
  if (!type) throw badRequest(`Unknown check "${c.check}"`, `${at}.check`);
  const v = c.value;
  const param = `${at}.value`;
  const typeName = scalarType(type);
  const isScalar = (x: unknown) => typeof x === typeName;
  switch (c.op) {
    case "exists":
      if (v !== undefined && typeof v !== "boolean") throw badRequest("`exists` takes true, false or no value", param);
      return;
    case "eq":
    case "ne":
      if (v === null) return;
      if (!isScalar(v)) throw badRequest(`Check "${c.check}" is a ${type}; ${c.op} needs a ${typeName} value`, param);
      return;
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      if (type !== "number") throw badRequest(`Check "${c.check}" is a ${type}; ${c.op} needs a number check`, `${at}.op`);
      if (typeof v !== "number") throw badRequest(`${c.op} needs a number value`, param);
      return;
    case "in":
    case "not_in":
      if (!Array.isArray(v) || v.length === 0 || !v.every(isScalar))
        throw badRequest(`${c.op} needs a non-empty array of ${typeName} values`, param);
      return;
    case "in_list":
    case "not_in_list":
      if (type !== "string" && type !== "string[]") throw badRequest(`${c.op} needs a string check`, `${at}.check`);
      if (!(typeof v === "string" && v) && !(Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string" && x))) {
        throw badRequest(`${c.op} needs a list id or an array of list ids`, param);
      }
      return;
  }
}

export function validateCondition(cond: Condition, at = "conditions", depth = 0, count = { n: 0 }): void {
  if (depth > MAX_DEPTH) throw badRequest(`Conditions nest deeper than ${MAX_DEPTH}`, at);
  if (++count.n > MAX_NODES) throw badRequest(`Conditions have more than ${MAX_NODES} nodes`, at);
  if ("all" in cond) {
    for (const [i, c] of cond.all.entries()) validateCondition(c, `${at}.all.${i}`, depth + 1, count);
  } else if ("any" in cond) {
    for (const [i, c] of cond.any.entries()) validateCondition(c, `${at}.any.${i}`, depth + 1, count);
  } else if ("not" in cond) validateCondition(cond.not, `${at}.not`, depth + 1, count);
  else checkComparison(cond, at);
}

export function validatePolicy(
  p: { conditions?: Condition; verdict?: Verdict; challenge?: PolicyChallenge | null },
  existing?: { verdict: Verdict; challenge?: PolicyChallenge },
): void {
  if (p.conditions !== undefined) validateCondition(p.conditions);
  const verdict = p.verdict ?? existing?.verdict;
  const challenge = p.challenge === undefined ? existing?.challenge : (p.challenge ?? undefined);
  if ((verdict === "challenge" || verdict === "challenge_and_restrict") && !challenge) {
    throw badRequest(`A ${verdict} policy needs a challenge ({ type, channels, ... })`, "challenge");
  }
}
