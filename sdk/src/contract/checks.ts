// The catalogue of checks a policy may test (docs/policies.md): name → value type.
// Policies are validated against it on write; the evaluation's `checks` snapshot uses these names.
// Browser-safe (the console's editor validates with it), so it holds no server code: each check is defined, with what
// it means, once on the server (server/src/checks/families/*.ts, listed by server/src/checks/index.ts, in this order),
// which is typed against this catalogue and tested to say the same names and types (server/src/checks/registry.test.ts).
import * as z from "zod/mini";

export type CheckType = "boolean" | "number" | "string" | "string[]";

export const CHECKS = {
  // Who the request is
  is_new_user: "boolean",
  is_new_fingerprint: "boolean",
  is_new_device: "boolean",
  is_recognised_device: "boolean",
  user_age_days: "number",
  fingerprint_confidence: "number",
  is_provisional_user: "boolean",
  is_email_verified: "boolean",
  is_phone_verified: "boolean",
  identity_verified: "boolean",
  contact_mismatch: "boolean",
  // What the user was let in with before
  is_new_ip: "boolean",
  is_new_network: "boolean",
  is_new_country: "boolean",
  is_new_provider: "boolean",
  is_new_timezone: "boolean",
  is_new_language: "boolean",
  is_new_browser_family: "boolean",
  // The accounts behind one browser or address
  fingerprint_user_count: "number",
  fingerprint_accounts_tried: "number",
  fingerprint_ip_user_count: "number",
  device_user_count: "number",
  ip_user_count: "number",
  // Logins on accounts the backend never confirmed
  device_provisional_attempts: "number",
  fingerprint_provisional_attempts: "number",
  ip_provisional_attempts: "number",
  network_provisional_attempts: "number",
  device_provisional_attempts_day: "number",
  fingerprint_provisional_attempts_day: "number",
  ip_provisional_attempts_day: "number",
  network_provisional_attempts_day: "number",
  // The network
  ip_is_vpn: "boolean",
  ip_is_proxy: "boolean",
  ip_is_tor: "boolean",
  ip_is_hosting: "boolean",
  ip_is_anonymous: "boolean",
  ip_country: "string",
  timezone_mismatch: "boolean",
  timezone_in_ip_country: "boolean",
  server_timezone: "boolean",
  // Fingerprint churn
  ip_new_fingerprints: "number",
  network_new_fingerprints: "number",
  provider_new_fingerprints: "number",
  ip_new_fingerprints_day: "number",
  network_new_fingerprints_day: "number",
  provider_new_fingerprints_day: "number",
  // Sign-up farms
  ip_noisy_siblings_day: "number",
  network_noisy_siblings_day: "number",
  provider_noisy_siblings_day: "number",
  login_noisy_siblings_day: "number",
  fingerprint_signups_day: "number",
  fingerprint_signups_elsewhere_day: "number",
  fingerprint_ip_reused_tokens_day: "number",
  // Travel
  impossible_travel: "boolean",
  travel_speed_kmh: "number",
  browser_impossible_travel: "boolean",
  distance_from_trusted_km: "number",
  // Account sharing
  concurrent_sessions: "number",
  session_impossible_travel: "boolean",
  device_count: "number",
  computer_device_count: "number",
  tablet_device_count: "number",
  mobile_device_count: "number",
  device_limit: "number",
  devices_over_limit: "number",
  // Velocity
  has_high_velocity: "boolean",
  event_count: "number",
  ip_event_count: "number",
  fingerprint_event_count: "number",
  // Email
  email_is_disposable: "boolean",
  email_is_webmail: "boolean",
  email_is_invalid: "boolean",
  // Automation
  is_bot: "boolean",
  bot_user_agent: "boolean",
  client_automation: "boolean",
  user_agent_mismatch: "boolean",
  software_renderer: "boolean",
  headless_window: "boolean",
  implausible_hardware: "boolean",
  // Content
  content_link_count: "number",
  content_has_contact_info: "boolean",
  content_repetition_count: "number",
  content_spam_score: "number",
  // The request's own values, and the lists that hold them
  in_list: "string[]",
  action: "string",
  user_id: "string",
  ip: "string",
  email: "string",
  email_domain: "string",
  phone: "string",
  fingerprint_id: "string",
  device_id: "string",
  device_type: "string",
} as const satisfies Record<string, CheckType>;

export type CheckName = keyof typeof CHECKS;

export const RISK_CATEGORIES = [
  "ato",
  "fake_account",
  "account_sharing",
  "linked_accounts",
  "multi_accounting",
  "repeat_trial",
  "bot",
  "content_abuse",
] as const;
export const RiskCategory = z.enum(RISK_CATEGORIES);
export type RiskCategory = z.infer<typeof RiskCategory>;

/**
 * The type of a check name, including the derived risk checks `risk.<category>.score` (number) and
 * `risk.<category>.severity` (string); undefined for an unknown name.
 */
export function checkType(name: string): CheckType | undefined {
  if (Object.hasOwn(CHECKS, name)) return CHECKS[name as CheckName];
  const m = /^risk\.([a-z_]+)\.(score|severity)$/.exec(name);
  if (m && (RISK_CATEGORIES as readonly string[]).includes(m[1] as string)) return m[2] === "score" ? "number" : "string";
  return undefined;
}

export const ChecksSnapshot = z.record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.array(z.string()), z.null()]));
export type ChecksSnapshot = z.infer<typeof ChecksSnapshot>;
