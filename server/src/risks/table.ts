// The risks (docs/detection.md): each a weighted sum of its checks, as a declarative table. A row's weights are
// comparisons (the policy syntax) with the points they add and the indicator they name; the score is capped at
// 100 and cut into severities by the row's cutoffs. Risks are recorded on every evaluation; policies decide.
import type { Comparison, Condition, RiskCategory } from "@tessera/sdk/contract";
import type { CheckName } from "../checks/index.js";

export interface RiskWeight extends Comparison {
  /** A registered check (checks/index.ts): a weight on a check that does not exist fails type checking. */
  check: CheckName;
  points: number;
  indicator: string;
}

export interface RiskDefinition {
  name: RiskCategory;
  /** What the risk is about, in words (docs/detection.md lists them); the wire carries `definitionId(name)`. */
  description: string;
  /** Scores at or above each cutoff reach that severity; below `medium` is low. */
  cutoffs: { medium: number; high: number; maximum: number };
  weights: RiskWeight[];
  /**
   * The evaluations it is measured on (a condition over the checks, as in policies); on the others it is low, with
   * score 0 and no indicators. Unset: every evaluation.
   */
  measuredWhen?: Condition;
}

const w = (check: CheckName, op: Comparison["op"], value: Comparison["value"], points: number, indicator: string): RiskWeight => ({
  check,
  op,
  value,
  points,
  indicator,
});

export const RISKS: RiskDefinition[] = [
  {
    name: "ato",
    description: "Account takeover: a known account used from an unfamiliar browser, place or network",
    cutoffs: { medium: 30, high: 55, maximum: 80 },
    weights: [
      w("is_new_fingerprint", "eq", true, 20, "new_fingerprint"),
      // Someone asking for codes to go elsewhere than the owner's stored address: high on its own.
      w("contact_mismatch", "eq", true, 55, "contact_mismatch"),
      w("is_new_device", "eq", true, 10, "new_device"),
      // A new address on a familiar network (a DHCP lease, a second gateway exit) says little; a new network more.
      w("is_new_ip", "eq", true, 5, "new_ip"),
      w("is_new_network", "eq", true, 10, "new_network"),
      w("impossible_travel", "eq", true, 35, "impossible_travel"),
      w("ip_is_anonymous", "eq", true, 20, "anonymous_network"),
      w("ip_is_tor", "eq", true, 10, "tor_detected"),
      // Weak: a traveller's laptop keeps its home zone as often as an attacker's proxy is far from them.
      w("timezone_mismatch", "eq", true, 5, "timezone_mismatch"),
      w("ip_user_count", "gte", 5, 15, "shared_ip"),
      w("has_high_velocity", "eq", true, 15, "high_velocity"),
    ],
  },
  {
    name: "account_sharing",
    description: "One account used by several people: many devices, concurrent sessions in different places",
    cutoffs: { medium: 30, high: 60, maximum: 85 },
    weights: [
      // Over the device limit of the account-sharing policy that applies (not a constant: device_limit).
      w("devices_over_limit", "gt", 0, 40, "limit_exceeded"),
      w("devices_over_limit", "gt", 2, 15, "many_devices"),
      w("concurrent_sessions", "gte", 1, 30, "concurrent_sessions"),
      w("concurrent_sessions", "gte", 2, 15, "many_concurrent_sessions"),
      // Two sessions at once too far apart for one person: as strong as being over the limit.
      w("session_impossible_travel", "eq", true, 40, "sessions_far_apart"),
      w("impossible_travel", "eq", true, 15, "impossible_travel"),
    ],
    // Only on a session that is the account's: a browser the user signed in on (found by its own visitor token), or a
    // user id the backend signed or sent. The client id is public, and the user's components are anyone's: a stranger
    // naming the account, from anywhere, says nothing about how the account is used (the sharing policy may still ask
    // the owner, whose code it is).
    measuredWhen: {
      any: [
        { check: "is_new_fingerprint", op: "eq", value: false },
        { check: "identity_verified", op: "eq", value: true },
      ],
    },
  },
  {
    name: "multi_accounting",
    description: "One person holding several accounts: a browser or device shared by many users",
    cutoffs: { medium: 30, high: 60, maximum: 85 },
    weights: [
      w("fingerprint_user_count", "gte", 3, 40, "shared_fingerprint"),
      w("fingerprint_user_count", "gte", 6, 30, "many_accounts_on_fingerprint"),
      w("device_user_count", "gte", 3, 30, "shared_device"),
      w("ip_user_count", "gte", 10, 10, "shared_ip"),
    ],
  },
  {
    name: "linked_accounts",
    description: "Accounts linked through a shared browser, device or address",
    cutoffs: { medium: 30, high: 60, maximum: 85 },
    weights: [
      w("fingerprint_user_count", "gte", 2, 35, "shared_fingerprint"),
      w("device_user_count", "gte", 2, 35, "shared_device"),
      w("ip_user_count", "gte", 3, 20, "shared_ip"),
    ],
  },
  {
    name: "repeat_trial",
    description: "A new account from a browser or device that already had one (trial abuse)",
    cutoffs: { medium: 30, high: 55, maximum: 85 },
    weights: [
      w("action", "in", ["signup", "trial", "start_trial"], 10, "signup"),
      w("fingerprint_user_count", "gte", 2, 30, "known_fingerprint"),
      w("fingerprint_user_count", "gte", 3, 25, "shared_fingerprint"),
      w("device_user_count", "gte", 2, 25, "known_device"),
      w("email_is_disposable", "eq", true, 15, "disposable_email"),
    ],
  },
  {
    name: "fake_account",
    description: "An account not backed by a real person: throwaway email, datacenter network, automation",
    cutoffs: { medium: 30, high: 55, maximum: 80 },
    weights: [
      w("email_is_disposable", "eq", true, 40, "disposable_email"),
      w("email_is_invalid", "eq", true, 40, "invalid_email"),
      w("ip_is_hosting", "eq", true, 25, "datacenter_ip"),
      w("ip_is_anonymous", "eq", true, 10, "anonymous_network"),
      w("is_bot", "eq", true, 20, "bot_detected"),
      w("has_high_velocity", "eq", true, 10, "high_velocity"),
    ],
  },
  {
    name: "bot",
    description: "Automated traffic: automation markers, bot user agents, headless browsers, datacenter networks, inhuman velocity",
    cutoffs: { medium: 30, high: 55, maximum: 80 },
    weights: [
      w("client_automation", "eq", true, 40, "automation_detected"),
      w("bot_user_agent", "eq", true, 50, "bot_user_agent"),
      // Server-side browser evidence (docs/detection.md). Alone each stays below high (55): a user-agent switcher, a Linux
      // desktop without GPU drivers. Two together — a forged user agent on a software renderer — reach it.
      w("user_agent_mismatch", "eq", true, 40, "user_agent_mismatch"),
      w("headless_window", "eq", true, 40, "headless_window"),
      w("implausible_hardware", "eq", true, 25, "implausible_hardware"),
      w("software_renderer", "eq", true, 20, "software_renderer"),
      w("ip_is_hosting", "eq", true, 25, "datacenter_ip"),
      w("has_high_velocity", "eq", true, 25, "high_velocity"),
      w("ip_is_tor", "eq", true, 10, "tor_detected"),
    ],
  },
  {
    name: "content_abuse",
    description: "Spam or abusive content: links, contact details, spam vocabulary, the same text from many users",
    cutoffs: { medium: 30, high: 55, maximum: 80 },
    weights: [
      w("content_spam_score", "gte", 25, 30, "spam_patterns"),
      w("content_spam_score", "gte", 50, 25, "strong_spam_patterns"),
      w("content_link_count", "gte", 2, 15, "links"),
      w("content_link_count", "gte", 5, 15, "many_links"),
      w("content_has_contact_info", "eq", true, 15, "contact_info"),
      w("content_repetition_count", "gte", 2, 30, "repeated_content"),
      w("content_repetition_count", "gte", 5, 20, "mass_repeated_content"),
      w("is_bot", "eq", true, 10, "bot_detected"),
    ],
  },
];
