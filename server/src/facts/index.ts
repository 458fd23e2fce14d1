// The fact providers (docs/detection.md, "How to add a check"), one file per kind: what the store knows about a
// request's past. loadFacts starts every provider asked for at once, so that their reads go out together as they did
// in one Promise.all (on PostgreSQL the users' lists join one statement: store/user-lists.ts), then sends the history's
// statement of numbers that several of them share (facts/scalars.ts). Which providers: those the registered checks
// need (checks/index.ts, NEEDED_FACTS) and those the pipeline reads itself (PIPELINE_FACTS).

import { signedInBrowser } from "./browser.js";
import type { AnyFactProvider, FactRequest, FactsOf } from "./define.js";
import { lists } from "./lists.js";
import { ScalarsBatch } from "./scalars.js";

export { fingerprintAccounts, fingerprintIpUsers, ipUsers, linkingFingerprint, tokenUsers } from "./accounts.js";
export { attempts } from "./attempts.js";
export { signedInBrowser } from "./browser.js";
export { churn } from "./churn.js";
export { repeatedContent } from "./content.js";
export type { AnyFactProvider, FactOf, FactProvider, FactRequest, FactsOf } from "./define.js";
export { userDevices } from "./devices.js";
export { signupFarm } from "./farm.js";
export { listMemberships, lists, listValues } from "./lists.js";
export { browserPlaces, trustedPlaces } from "./places.js";
export { velocity } from "./velocity.js";

/**
 * What the pipeline reads itself, whatever the checks need: whether the user signed in on this device (what it lets in
 * is theirs from the start: pipeline/evaluate.ts) and the lists that hold the request's values (policies' in_list).
 */
export const PIPELINE_FACTS = [signedInBrowser, lists] as const;

/** Loaded facts by provider name: the pipeline's own, and those of the checks. */
export type LoadedFacts = FactsOf<typeof PIPELINE_FACTS> & Record<string, unknown>;

/**
 * Loads the facts of `needed` and the pipeline's own (PIPELINE_FACTS), each provider once, all at once. `more`: the
 * rest of an evaluation's facts, whose pipeline facts are loaded already (pipeline/decide.ts, a page view that turns
 * out not to be a known session's).
 */
export async function loadFacts(
  needed: readonly AnyFactProvider[],
  request: Omit<FactRequest, "scalars">,
  more = false,
): Promise<LoadedFacts> {
  const providers = [...new Set<AnyFactProvider>(more ? needed : [...needed, ...PIPELINE_FACTS])];
  const scalars = new ScalarsBatch(request.repos, request.input.env.id);
  const r: FactRequest = { ...request, scalars };
  const pending = providers.map((p) => p.load(r));
  void scalars.send();
  const values = await Promise.all(pending);
  const out: Record<string, unknown> = {};
  providers.forEach((p, i) => {
    out[p.name] = values[i];
  });
  return out as LoadedFacts;
}
