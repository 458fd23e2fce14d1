// Decision step: signals → checks → risks → policies → verdict (docs/architecture.md). Each step lives in its own module;
// this function only shows them in order and assembles the Decision the orchestrator stores.
import type { ChecksSnapshot, Evaluation, PolicyChallenge, Risk, Verdict } from "@tessera/sdk/contract";
import { computeChecks, deviceLimitFor, NEEDED_FACTS, RECORDED_DIMENSIONS } from "../checks/index.js";
import { recordedValues } from "../facts/familiarity.js";
import { listMemberships, loadFacts } from "../facts/index.js";
import { geo } from "../geo/index.js";
import { selectPolicy } from "../policies/engine.js";
import { policiesFor } from "../policies/index.js";
import { testModeMatch } from "../policies/test-mode.js";
import { riskChecks, scoreRisks } from "../risks/index.js";
import { collectSignals } from "../signals/index.js";
import type { Repos } from "../store/repos.js";
import type { EvaluationInput } from "./context.js";
import type { Identity } from "./identity.js";
import { isKnownSessionView, lightChecks } from "./page-view.js";

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
  /** The hash of the content's text, recorded with the evaluation under the user's id (repetition across users). */
  contentHash?: string;
  /** The IP's network, recorded with the evaluation (its trusted places compare networks: checks/families/travel.ts). */
  network?: { prefix: string; asn?: number };
  /**
   * What this evaluation makes familiar to its user once trusted, by ledger dimension (facts/familiarity.ts): stored
   * with it, written to the ledger when it is confirmed (store/familiarity.ts).
   */
  familiar: Record<string, string>;
  /** The user signed in on this device (device_confirmations): what it lets the user do now is theirs (migration 23). */
  signedIn?: boolean;
  /**
   * For challenge verdicts: challenged only because the browser claimed contacts other than the stored ones: such a
   * challenge never counts against another browser's pending challenges (challenges/budgets.ts).
   */
  contactOnly?: boolean;
  /** Set on a page view of a known session, decided on the light path (pipeline/page-view.ts). */
  path?: "known_session_view";
}

const challenges = (verdict: Verdict): boolean => verdict === "challenge" || verdict === "challenge_and_restrict";

export async function decide(repos: Repos, input: EvaluationInput, identity: Identity, evaluationId: string): Promise<Decision> {
  const signals = collectSignals({ input, identity, geo: geo() });
  // A page view of a known session loads only the facts of the checks it re-checks, which the policies decide
  // (pipeline/page-view.ts): they are read first (cached), then the facts.
  let light = isKnownSessionView(input, identity) ? lightChecks(await policiesFor(repos, input.env), input.action) : undefined;
  const request = { repos, input, identity, signals };
  const [facts, policies] = await Promise.all([loadFacts(light?.facts ?? NEEDED_FACTS, request), policiesFor(repos, input.env)]);
  if (light && !facts.browser.device) {
    // The account's device, but the user never signed in on it (a login let in that the backend has not confirmed):
    // not a known session. The facts the light path left out are loaded now, and the view takes the full path.
    const loaded = new Set(light.facts);
    Object.assign(
      facts,
      await loadFacts(
        NEEDED_FACTS.filter((p) => !loaded.has(p)),
        request,
        true,
      ),
    );
    light = undefined;
  }
  const deviceLimit = deviceLimitFor(policies, input.action, input.env.settings.default_device_limit);
  const checks = computeChecks(input, identity, signals, facts, { deviceLimit, ...(light ? { only: light.checks } : {}) });
  const risks = scoreRisks(checks, evaluationId);
  const lists = listMemberships(input, identity, signals, facts.lists);
  const select = (c: ChecksSnapshot, r: Risk[]) =>
    testModeMatch(input.env, input.action, lists) ?? selectPolicy(policies, input.action, { checks: { ...c, ...riskChecks(r) }, lists }, r);
  const match = select(checks, risks);

  const decision: Decision = {
    verdict: match?.policy.verdict ?? "allow",
    reasons: match?.reasons ?? [],
    checks,
    risks,
    familiar: recordedValues(RECORDED_DIMENSIONS, { input, identity, signals }),
  };
  if (light) decision.path = "known_session_view";
  if (signals.content) decision.contentHash = signals.content.hash;
  if (signals.network) decision.network = signals.network;
  if (facts.browser.device) decision.signedIn = true;
  const g = signals.geolocation;
  if (g) {
    decision.geolocation = {
      ip: g.ip,
      ...(g.city ? { city: g.city } : {}),
      ...(g.region ? { region: g.region } : {}),
      ...(g.country ? { country: g.country } : {}),
      ...(g.country_code ? { country_code: g.country_code } : {}),
      ...(g.latitude !== undefined ? { latitude: g.latitude, longitude: g.longitude } : {}),
      ...(g.asn !== undefined ? { asn: g.asn } : {}),
      ...(g.as_org ? { as_org: g.as_org } : {}),
      security: {
        vpn: checks.ip_is_vpn === true,
        proxy: checks.ip_is_proxy === true,
        tor: checks.ip_is_tor === true,
        hosting: checks.ip_is_hosting === true,
      },
    };
  }
  if (match) {
    decision.policy = { id: match.policy.id, name: match.policy.name, action: { type: match.policy.verdict } };
    if (challenges(match.policy.verdict) && match.policy.challenge) {
      decision.challenge = match.policy.challenge;
      // Raised only by the claimed contacts? Asked of the outcome — the same policies, the risks scored again, without
      // the claim — rather than of the matched policy's reasons, so that it holds however the claim made a policy
      // match: its own comparison, a risk it pushed past a cutoff (risk.ato), or a lower policy it displaced.
      if (checks.contact_mismatch === true) {
        const unclaimed = { ...checks, contact_mismatch: false };
        const without = select(unclaimed, scoreRisks(unclaimed, evaluationId));
        decision.contactOnly = !(without && challenges(without.policy.verdict) && without.policy.challenge);
      }
    }
  }
  return decision;
}
