// The policy step (SPEC.md 6): the enabled policy of highest priority whose actions include this one and whose
// conditions hold decides the verdict; none matching → allow. Also names the reasons: the indicators of the
// comparisons that made the winning policy true.
import type { Comparison, Risk } from "@tessera/sdk/contract";
import type { StoredPolicy } from "../store/policies.js";
import { type ConditionContext, evaluateCondition } from "./conditions.js";

/** Reason names of the checks a policy may test (what the customer sees in `reasons`). */
const INDICATORS: Record<string, string> = {
  is_new_user: "new_user",
  is_new_fingerprint: "new_fingerprint",
  is_new_device: "new_device",
  is_new_ip: "new_ip",
  is_new_network: "new_network",
  ip_is_vpn: "vpn_detected",
  ip_is_proxy: "proxy_detected",
  ip_is_tor: "tor_detected",
  ip_is_hosting: "datacenter_ip",
  ip_is_anonymous: "anonymous_network",
  impossible_travel: "impossible_travel",
  travel_speed_kmh: "impossible_travel",
  distance_from_trusted_km: "unfamiliar_place",
  concurrent_sessions: "concurrent_sessions",
  session_impossible_travel: "sessions_far_apart",
  has_high_velocity: "high_velocity",
  event_count: "high_velocity",
  ip_event_count: "high_velocity",
  fingerprint_event_count: "high_velocity",
  device_count: "limit_exceeded",
  computer_device_count: "limit_exceeded",
  tablet_device_count: "limit_exceeded",
  mobile_device_count: "limit_exceeded",
  devices_over_limit: "limit_exceeded",
  fingerprint_user_count: "shared_fingerprint",
  device_user_count: "shared_device",
  ip_user_count: "shared_ip",
  email_is_disposable: "disposable_email",
  email_is_invalid: "invalid_email",
  email_is_webmail: "webmail",
  is_bot: "bot_detected",
  bot_user_agent: "bot_user_agent",
  client_automation: "automation_detected",
  user_agent_mismatch: "user_agent_mismatch",
  software_renderer: "software_renderer",
  headless_window: "headless_window",
  implausible_hardware: "implausible_hardware",
  timezone_mismatch: "timezone_mismatch",
  content_link_count: "links",
  content_has_contact_info: "contact_info",
  content_repetition_count: "repeated_content",
  content_spam_score: "spam_patterns",
};

export interface PolicyMatch {
  policy: StoredPolicy;
  reasons: string[];
}

function reasonsOf(matched: Comparison[], risks: Risk[]): string[] {
  const out: string[] = [];
  const add = (r: string) => {
    if (!out.includes(r)) out.push(r);
  };
  for (const c of matched) {
    const risk = /^risk\.([a-z_]+)\./.exec(c.check);
    if (risk) {
      for (const i of risks.find((r) => r.name === risk[1])?.indicators ?? []) add(i);
    } else if (c.op === "in_list" || c.op === "not_in_list") {
      const ids = Array.isArray(c.value) ? c.value : [c.value];
      for (const id of ids) add(`${c.op === "in_list" ? "in_list" : "not_in_list"}:${String(id)}`);
    } else if (c.value === false && c.op === "eq") {
      // A comparison that holds because something is absent (e.g. is_new_user = false) explains nothing.
    } else add(INDICATORS[c.check] ?? c.check);
  }
  return out;
}

export function selectPolicy(policies: StoredPolicy[], action: string, ctx: ConditionContext, risks: Risk[]): PolicyMatch | undefined {
  // `policies` come highest priority first (ties: oldest first), so the first match wins.
  for (const policy of policies) {
    if (!policy.enabled) continue;
    if (policy.actions.length > 0 && !policy.actions.includes(action)) continue;
    const matched: Comparison[] = [];
    if (evaluateCondition(ctx, policy.conditions, matched)) return { policy, reasons: reasonsOf(matched, risks) };
  }
  return undefined;
}
