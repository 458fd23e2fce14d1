// Test mode (issue 19): in a development environment, a value on a test list (TEST_LISTS: test_challenge, …) forces
// the verdict, as a policy above every other would. Customers' end-to-end tests run headless browsers from 127.0.0.1,
// which the default policies deny as bots; a test user on test_challenge meets the challenge instead. Never in
// production: the lists are refused there (routes/v3/lists.ts, config-file.ts) and ignored here.
import { type ChallengeType, type PolicyChallenge, TEST_LISTS, type TestList, type Verdict } from "@tessera/sdk/contract";
import type { StoredPolicy } from "../store/policies.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { PolicyMatch } from "./engine.js";

export const isTestList = (id: string): id is TestList => Object.hasOwn(TEST_LISTS, id);

/** The challenge a forced challenge runs: what the action's default policy would guard against. */
function challengeFor(action: string): PolicyChallenge {
  const type: ChallengeType = action === "signup" ? "fake_account" : action === "access" ? "account_sharing" : "account_takeover";
  return { type, channels: ["email", "text"], require: "any", allow_skip: false, skip_limit: 3 };
}

/** The forced match when a value of this evaluation is on a test list of a development environment. */
export function testModeMatch(
  env: EnvironmentRecord,
  action: string,
  lists: ReadonlyMap<string, ReadonlySet<string>>,
): PolicyMatch | undefined {
  if (env.name !== "development") return undefined;
  const list = (Object.keys(TEST_LISTS) as TestList[]).find((id) => (lists.get(id)?.size ?? 0) > 0);
  if (!list) return undefined;
  const verdict: Verdict = TEST_LISTS[list];
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
