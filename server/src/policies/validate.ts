// Validation of a policy on write (docs/policies.md): the condition tree's rules live in the contract (one definition with
// the console's editor); challenge verdicts need a challenge. Errors name the offending field.
import { type Condition, conditionProblem, type PolicyChallenge, type Verdict } from "@tessera/sdk/contract";
import { badRequest } from "../errors.js";

/** Throws the tree's first problem (sdk/src/contract/condition-check.ts, shared with the console's editor) as a 400. */
export function validateCondition(cond: Condition): void {
  const problem = conditionProblem(cond);
  if (problem) throw badRequest(problem.message, problem.param);
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
