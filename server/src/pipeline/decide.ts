// Decision step: signals → checks → risks → policies → verdict (SPEC.md 6).
// Walking-skeleton version: the identity checks only, no risks, no policies, so every verdict is allow.
// The risk engine replaces the body of `decide` and keeps its signature.
import type { ChecksSnapshot, Evaluation, PolicyChallenge, Risk, Verdict } from "@tessera/sdk/contract";
import type { Repos } from "../store/repos.js";
import type { EvaluationInput } from "./context.js";
import type { Identity } from "./identity.js";

export interface Decision {
  verdict: Verdict;
  reasons: string[];
  checks: ChecksSnapshot;
  risks: Risk[];
  geolocation?: Evaluation["geolocation"];
  /** The matched policy, as embedded in the evaluation. */
  policy?: { id: string; name: string; action: { type: Verdict } };
  /** For challenge verdicts: the challenge the policy asks for. */
  challenge?: PolicyChallenge;
}

export async function decide(repos: Repos, input: EvaluationInput, identity: Identity): Promise<Decision> {
  const isNewIp = input.ip && identity.user ? !(await repos.evaluations.userHasSeenIp(input.env.id, identity.user.id, input.ip)) : true;
  const checks: ChecksSnapshot = {
    action: input.action,
    is_new_user: identity.userIsNew,
    is_new_fingerprint: identity.fingerprint?.isNew ?? true,
    is_new_device: identity.device?.isNew ?? true,
    is_new_ip: isNewIp,
  };
  return { verdict: "allow", reasons: [], checks, risks: [] };
}
