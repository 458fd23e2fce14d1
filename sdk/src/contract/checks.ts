// The catalogue of checks a policy may test (SPEC.md 6): name → value type.
// Policies are validated against it on write; the evaluation's `checks` snapshot uses these names.
import * as z from "zod/mini";

export type CheckType = "boolean" | "number" | "string" | "string[]";

export const CHECKS = {
  action: "string",
  is_new_user: "boolean",
  is_new_ip: "boolean",
  is_new_network: "boolean",
  is_new_fingerprint: "boolean",
  is_new_device: "boolean",
  user_age_days: "number",
  fingerprint_confidence: "number",
  fingerprint_user_count: "number",
  /**
   * Accounts logged into from this identifying fingerprint within the hour, known or not, this login included (0 for a
   * fingerprint that does not identify a browser).
   */
  fingerprint_accounts_tried: "number",
  /**
   * Accounts that used a browser with exactly this fingerprint from this IP within 7 days, this one included: a browser
   * that is not identifying (a phone's model) and cleared its storage is still one browser on one address.
   */
  fingerprint_ip_user_count: "number",
  device_user_count: "number",
  is_provisional_user: "boolean",
  device_provisional_attempts: "number",
  fingerprint_provisional_attempts: "number",
  ip_provisional_attempts: "number",
  network_provisional_attempts: "number",
  /** Distinct unconfirmed accounts tried from this browser within the day (24 hours), the current one included. */
  device_provisional_attempts_day: "number",
  /** The same from this identifying fingerprint (a browser clearing its storage between attempts). */
  fingerprint_provisional_attempts_day: "number",
  /** The same from this IP. */
  ip_provisional_attempts_day: "number",
  /** The same from this IP's /24 (IPv4) or /48 (IPv6). */
  network_provisional_attempts_day: "number",
  ip_user_count: "number",
  ip_is_vpn: "boolean",
  ip_is_proxy: "boolean",
  ip_is_tor: "boolean",
  ip_is_hosting: "boolean",
  ip_is_anonymous: "boolean",
  ip_country: "string",
  /**
   * The IP's country is not among those of the user's trusted evaluations on ordinary networks (null: none yet, or
   * this IP is a VPN, proxy, Tor or datacenter exit).
   */
  is_new_country: "boolean",
  /** Through a cloud, VPN or proxy provider (its ASN) the user was never let in through; null on other networks. */
  is_new_provider: "boolean",
  /**
   * The browser's time zone is one no browser the user was let in from was set to; null for a user with no such
   * evaluation yet, and for a browser naming no place (none, UTC or an Etc/ offset, as privacy browsers report).
   */
  is_new_timezone: "boolean",
  /**
   * The browser is set to a language (navigator.language) that no browser the user was let in from was set to; null
   * for a user with no such evaluation yet, and for a browser that reports none. A phone abroad keeps its owner's.
   */
  is_new_language: "boolean",
  /** Never-seen identifying fingerprints first presented from this IP in the last hour, this one included. */
  ip_new_fingerprints: "number",
  /** The same from this IP's /24 (IPv4) or /48 (IPv6). */
  network_new_fingerprints: "number",
  /** The same from this IP's provider ASN when it is a cloud, VPN or proxy provider's (0 otherwise). */
  provider_new_fingerprints: "number",
  /** Never-seen identifying fingerprints first presented from this IP within the day (24 hours), this one included. */
  ip_new_fingerprints_day: "number",
  /** The same from this IP's /24 (IPv4) or /48 (IPv6), within the day. */
  network_new_fingerprints_day: "number",
  /** The same from this IP's cloud, VPN or proxy provider's ASN, within the day (0 elsewhere). */
  provider_new_fingerprints_day: "number",
  impossible_travel: "boolean",
  travel_speed_kmh: "number",
  /**
   * The browser (its device, or its identifying, non-popular fingerprint) was, within the day, on a network too far
   * away to have travelled here since (the impossible_travel rule), whatever account it named there.
   */
  browser_impossible_travel: "boolean",
  /**
   * Kilometres from the nearest of the user's latest trusted places (let in, or verified) in this IP's country, beyond
   * both geolocations' accuracy radii; 0 on one of those networks; null when this IP places no one (a VPN, proxy, Tor,
   * datacenter or carrier exit) or the user has no such place in this country.
   */
  distance_from_trusted_km: "number",
  concurrent_sessions: "number",
  session_impossible_travel: "boolean",
  has_high_velocity: "boolean",
  event_count: "number",
  ip_event_count: "number",
  fingerprint_event_count: "number",
  device_count: "number",
  computer_device_count: "number",
  tablet_device_count: "number",
  mobile_device_count: "number",
  device_limit: "number",
  devices_over_limit: "number",
  email_is_disposable: "boolean",
  email_is_webmail: "boolean",
  email_is_invalid: "boolean",
  is_email_verified: "boolean",
  is_phone_verified: "boolean",
  /** A client evaluation claimed an email or phone other than the user's stored one (SPEC.md 12: a strong ATO sign). */
  contact_mismatch: "boolean",
  /** The user is vouched for by the customer's backend: a valid user_token, or a server evaluation (SPEC.md 12). */
  identity_verified: "boolean",
  is_bot: "boolean",
  bot_user_agent: "boolean",
  client_automation: "boolean",
  user_agent_mismatch: "boolean",
  software_renderer: "boolean",
  headless_window: "boolean",
  implausible_hardware: "boolean",
  timezone_mismatch: "boolean",
  /**
   * The browser's time zone is one of the zones of the IP's country (CLDR's list, as Intl carries it): a phone takes
   * the zone of the network it is on. Null when the browser names no place or the IP has no country.
   */
  timezone_in_ip_country: "boolean",
  in_list: "string[]",
  user_id: "string",
  ip: "string",
  email: "string",
  email_domain: "string",
  phone: "string",
  fingerprint_id: "string",
  device_id: "string",
  device_type: "string",
  content_link_count: "number",
  content_has_contact_info: "boolean",
  content_repetition_count: "number",
  content_spam_score: "number",
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
