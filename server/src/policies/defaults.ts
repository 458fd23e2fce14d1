// The policies every new environment starts with (docs/policies.md). Priorities: denials above challenges above
// restrictions, so the strongest matching verdict wins. Thresholds favour honest users (a false positive costs
// more than a miss): two accounts on one family computer, a new phone at home or a trip abroad are not challenged.
// Each is data in a file of its own (policies/defaults/<key>.ts): its tree with its parts named, its description beside
// it, in the words of policies/defaults/rules.ts; policies/defaults/defaults.test.ts prints each tree beside its
// description for review, and holds each shipped rule's digest (an environment seeded earlier is upgraded by digest:
// PoliciesRepo.upgradeDefaults). This list is their seeding order.
import type { PolicyInput } from "../store/policies.js";
import challengeAccountCycling from "./defaults/challenge-account-cycling.js";
import challengeAccountSharing from "./defaults/challenge-account-sharing.js";
import challengeAto from "./defaults/challenge-ato.js";
import challengeBots from "./defaults/challenge-bots.js";
import challengeFingerprintChurn from "./defaults/challenge-fingerprint-churn.js";
import challengeRepeatTrial from "./defaults/challenge-repeat-trial.js";
import challengeTor from "./defaults/challenge-tor.js";
import denyBots from "./defaults/deny-bots.js";
import denyContentAbuse from "./defaults/deny-content-abuse.js";
import denyCredentialStuffing from "./defaults/deny-credential-stuffing.js";
import denyFakeAccounts from "./defaults/deny-fake-accounts.js";
import denyMultiAccounting from "./defaults/deny-multi-accounting.js";
import restrictDisposableEmail from "./defaults/restrict-disposable-email.js";
import restrictSuspiciousContent from "./defaults/restrict-suspicious-content.js";
import type { DefaultPolicy } from "./defaults/rules.js";
import { DEFAULT_DEVICE_LIMIT } from "./device-limit.js";

export const DEFAULT_POLICIES: readonly DefaultPolicy[] = [
  denyBots,
  denyCredentialStuffing,
  challengeAccountCycling,
  challengeFingerprintChurn,
  challengeTor,
  denyFakeAccounts,
  denyMultiAccounting,
  denyContentAbuse,
  challengeBots,
  challengeAto,
  challengeAccountSharing,
  challengeRepeatTrial,
  restrictDisposableEmail,
  restrictSuspiciousContent,
];

export function defaultPolicies(deviceLimit = DEFAULT_DEVICE_LIMIT): { key: string; policy: PolicyInput }[] {
  return DEFAULT_POLICIES.map((d) => ({ key: d.key, policy: d.policy({ deviceLimit }) }));
}
