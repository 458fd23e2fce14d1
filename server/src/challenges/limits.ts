// The challenges' limits, one definition each (docs/challenges.md, docs/security.md). The project's device limit is policies/device-limit.ts's
// (the sharing check reads it too); the skip limit's default is the contract's (PolicyChallenge.skip_limit); code
// lifetimes and send caps are configuration (config.ts: CHALLENGE_CODE_TTL_MS, CODE_SENDS_PER_*), attempts and
// resends codes.ts.
import { PolicyChallenge } from "@tessera/sdk/contract";

/**
 * Challenges a user may have pending at once from one source (docs/security.md; counted as budgets.ts says: a stranger's
 * fill the stranger's browser and network, never the owner's): each holds its own code and its own 5 guesses, so more
 * would multiply an attacker's guesses; 3 leaves room for the owner on a phone and a computer besides one stray.
 */
export const MAX_PENDING_CHALLENGES = 3;

/** The contract's default skip limit, for a challenge stored without one. */
const DEFAULT_SKIP_LIMIT: number = PolicyChallenge.shape.skip_limit.parse(undefined);

/** How many challenges a user may skip under this policy. */
export function skipLimit(cfg: { skip_limit?: number }): number {
  return cfg.skip_limit ?? DEFAULT_SKIP_LIMIT;
}
