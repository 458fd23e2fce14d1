// Test mode (docs/policies.md): in a development environment, a value on a test list (TEST_LISTS: test_challenge, …) forces
// the verdict, as a policy above every other would. Customers' end-to-end tests run headless browsers from 127.0.0.1,
// which the default policies deny as bots; a test user on test_challenge meets the challenge instead. Never in
// production: the lists are refused there (routes/v3/lists.ts, import/config-file.ts) and ignored here.
//
// Its reach is the action a test makes the user take — a login, a sign-up, a custom action — not the pages the user
// then opens (`access`, which the SDK sends on every page of a signed-in user). A test of a login challenge, once it
// passed, must see the signed-in pages as any user would, not a second challenge on the next page titled "too many
// devices" (an account-sharing story the one test device does not tell). So on `access` the challenge part of a test
// list is dropped: test_challenge lets the page in, test_challenge_and_restrict restricts it; deny, restrict and allow
// reach every action alike. README "Test mode", docs/policies.md and the demo site say the same.
import { type ChallengeType, type PolicyChallenge, TEST_LISTS, type TestList, testVerdict, type Verdict } from "@tessera/sdk/contract";
import type { EnvironmentRecord } from "../store/projects.js";
import type { StoredPolicy } from "../wire/policies.js";
import type { PolicyMatch } from "./engine.js";

export const isTestList = (id: string): id is TestList => Object.hasOwn(TEST_LISTS, id);

/** The challenge a forced challenge runs: what the action's default policy would guard against. */
function challengeFor(action: string): PolicyChallenge {
  const type: ChallengeType = action === "signup" ? "fake_account" : "account_takeover";
  return { type, channels: ["email", "text"], require: "any", allow_skip: false, skip_limit: 3 };
}

/** Most restrictive first, as TEST_LISTS is ordered: a value on several lists gets the most restrictive verdict. */
const SEVERITY: readonly Verdict[] = [...new Set(Object.values(TEST_LISTS))];

/** The forced match when a value of this evaluation is on a test list of a development environment. */
export function testModeMatch(
  env: EnvironmentRecord,
  action: string,
  lists: ReadonlyMap<string, ReadonlySet<string>>,
): PolicyMatch | undefined {
  if (env.name !== "development") return undefined;
  const held = (Object.keys(TEST_LISTS) as TestList[]).filter((id) => (lists.get(id)?.size ?? 0) > 0);
  if (held.length === 0) return undefined;
  // The first of the lists held whose verdict on this action is the most restrictive.
  const rank = (id: TestList) => SEVERITY.indexOf(testVerdict(id, action));
  const list = held.reduce((best, id) => (rank(id) < rank(best) ? id : best));
  const verdict = testVerdict(list, action);
  const at = new Date(0).toISOString();
  const policy: StoredPolicy = {
    id: "test_mode",
    name: `Test mode (${list} list)`,
    environment: env.name,
    enabled: true,
    actions: [],
    priority: Number.MAX_SAFE_INTEGER,
    conditions: { check: "in_list", op: "in", value: [list] },
    verdict,
    createdAt: at,
    updatedAt: at,
    source: "test_mode",
  };
  if (verdict === "challenge" || verdict === "challenge_and_restrict") policy.challenge = challengeFor(action);
  return { policy, reasons: ["test_mode", `in_list:${list}`] };
}
