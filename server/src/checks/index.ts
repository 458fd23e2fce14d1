// The checks (SPEC.md 6): named facts computed from the signals and the history, stored as the evaluation's
// `checks` snapshot and tested by risks and policies. One table, one line per check; the names and types are the
// contract's catalogue (sdk/src/contract/checks.ts).
import type { CheckName, ChecksSnapshot } from "@tessera/sdk/contract";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import { ACTIVE_WINDOW_MS } from "../store/devices.js";
import { type History, listValues } from "./history.js";
import { IMPOSSIBLE_KMH, MIN_TRAVEL_KM, travelSpeedKmh } from "./travel.js";

export { gatherHistory, type History } from "./history.js";

export interface CheckContext {
  input: EvaluationInput;
  identity: Identity;
  signals: SignalSet;
  history: History;
  /** Derived once for several checks. */
  derived: Derived;
}

interface Derived {
  deviceIsNewForUser: boolean;
  deviceCounts: { all: number; computer: number; tablet: number; mobile: number };
  travel?: { km: number; kmh: number };
  concurrent: number;
}

/** Velocity limits per window (see WINDOWS): beyond any person's pace, well within a script's. */
const HIGH_VELOCITY = { user: 60, ip: 120, fingerprint: 60 };

function countDevice(counts: Derived["deviceCounts"], type: string): void {
  counts.all++;
  if (type === "computer" || type === "tablet" || type === "mobile") counts[type]++;
}

function derive(input: EvaluationInput, identity: Identity, h: History): Derived {
  const user = identity.user;
  const device = identity.device;
  const deviceIsNewForUser = !device || device.isNew || !user || device.row.user_id !== user.id || device.row.status === "detached";
  const attached = h.devices.filter((d) => d.status === "attached" && d.id !== device?.row.id);
  const counts = { all: 0, computer: 0, tablet: 0, mobile: 0 };
  for (const d of attached) countDevice(counts, d.type);
  // The current device counts for a known user and for a new one (it joins the account with this evaluation).
  if ((user || identity.userIsNew) && device) countDevice(counts, identity.deviceType);
  // Concurrent sessions: other attached devices of the user, active in the last 15 minutes, of the same type,
  // from another IP (two browsers of one person on one network are not sharing).
  const concurrent = attached.filter(
    (d) =>
      d.last_seen_at != null &&
      input.at - d.last_seen_at < ACTIVE_WINDOW_MS &&
      d.type === identity.deviceType &&
      d.last_ip !== (input.ip ?? null),
  ).length;
  return { deviceIsNewForUser, deviceCounts: counts, concurrent };
}

function travelOf(ctx: CheckContext): { km: number; kmh: number } | undefined {
  const here = ctx.signals.geolocation;
  if (here?.latitude === undefined || here.longitude === undefined) return undefined;
  const prev = ctx.history.recent.find((r) => r.latitude != null && r.longitude != null && r.ip !== ctx.input.ip);
  if (!prev) return undefined;
  return travelSpeedKmh(
    { lat: prev.latitude as number, lon: prev.longitude as number, at: prev.created_at },
    { lat: here.latitude, lon: here.longitude, at: ctx.input.at },
  );
}

const DAY = 24 * 3600 * 1000;

/** How many distinct users, counting the current one, a set of user ids represents. */
function withCurrent(users: string[], current: string | undefined, isNewUser: boolean): number {
  const set = new Set(users);
  if (current) set.add(current);
  else if (isNewUser) return set.size + 1;
  return set.size;
}

type CheckFn = (c: CheckContext) => ChecksSnapshot[string];

export const CHECK_FUNCTIONS: Partial<Record<CheckName, CheckFn>> = {
  action: (c) => c.input.action,
  is_new_user: (c) => c.identity.userIsNew,
  // New for this user: a browser the user has never used (a known fingerprint of someone else's is still new).
  is_new_fingerprint: (c) => {
    const fp = c.identity.fingerprint;
    if (!fp) return true;
    if (fp.isNew) return true;
    if (!c.identity.user) return false;
    return !c.history.devices.some((d) => d.fingerprint_id === fp.row.id) && !c.history.recent.some((r) => r.fingerprint_id === fp.row.id);
  },
  is_new_device: (c) => c.derived.deviceIsNewForUser,
  is_new_ip: (c) => (c.identity.user ? !c.history.seenIp : true),
  user_age_days: (c) => (c.identity.user ? Math.floor((c.input.at - Number(c.identity.user.created_at)) / DAY) : 0),
  fingerprint_confidence: (c) => c.identity.fingerprint?.confidence ?? 0,
  fingerprint_user_count: (c) =>
    c.identity.fingerprint ? withCurrent(c.history.fingerprintUsers, c.identity.user?.id, !c.identity.user && !!c.input.user) : 0,
  device_user_count: (c) =>
    c.input.signals.visitor_token ? withCurrent(c.history.tokenUsers, c.identity.user?.id, !c.identity.user && !!c.input.user) : 0,
  ip_user_count: (c) =>
    c.input.ip ? withCurrent(c.history.ipUsers, c.identity.user?.id ?? (c.input.user ? "__new__" : undefined), false) : 0,
  ip_is_vpn: (c) => c.signals.geolocation?.network === "vpn" || c.signals.timezone.mismatch,
  ip_is_proxy: (c) => c.signals.geolocation?.network === "proxy" || c.signals.forwarding.proxied,
  ip_is_tor: (c) => c.signals.geolocation?.tor === true || c.signals.geolocation?.network === "tor",
  ip_is_hosting: (c) => c.signals.geolocation?.network === "hosting",
  ip_is_anonymous: (c) =>
    c.signals.geolocation?.network === "vpn" ||
    c.signals.geolocation?.network === "proxy" ||
    c.signals.geolocation?.tor === true ||
    c.signals.forwarding.proxied ||
    c.signals.timezone.mismatch,
  ip_country: (c) => c.signals.geolocation?.country_code ?? null,
  impossible_travel: (c) => {
    const t = c.derived.travel;
    return !!t && t.km >= MIN_TRAVEL_KM && t.kmh > IMPOSSIBLE_KMH;
  },
  travel_speed_kmh: (c) => (c.derived.travel ? Math.round(c.derived.travel.kmh) : 0),
  concurrent_sessions: (c) => c.derived.concurrent,
  has_high_velocity: (c) =>
    c.history.userEvents + 1 > HIGH_VELOCITY.user ||
    c.history.ipEvents + 1 > HIGH_VELOCITY.ip ||
    c.history.fingerprintEvents + 1 > HIGH_VELOCITY.fingerprint,
  // Counts include the current evaluation.
  event_count: (c) => (c.identity.user || c.input.user ? c.history.userEvents + 1 : 0),
  ip_event_count: (c) => (c.input.ip ? c.history.ipEvents + 1 : 0),
  fingerprint_event_count: (c) => (c.identity.fingerprint ? c.history.fingerprintEvents + 1 : 0),
  device_count: (c) => c.derived.deviceCounts.all,
  computer_device_count: (c) => c.derived.deviceCounts.computer,
  tablet_device_count: (c) => c.derived.deviceCounts.tablet,
  mobile_device_count: (c) => c.derived.deviceCounts.mobile,
  email_is_disposable: (c) => c.signals.email?.disposable ?? false,
  email_is_webmail: (c) => c.signals.email?.webmail ?? false,
  email_is_invalid: (c) => c.signals.email?.invalid ?? false,
  is_email_verified: (c) => c.identity.user?.email_verified === 1,
  is_phone_verified: (c) => c.identity.user?.phone_verified === 1,
  is_bot: (c) => c.signals.automation.detected || c.signals.userAgent.bot,
  bot_user_agent: (c) => c.signals.userAgent.bot,
  client_automation: (c) => c.signals.automation.detected,
  timezone_mismatch: (c) => c.signals.timezone.mismatch,
  in_list: (c) => [...new Set(c.history.lists.map((l) => l.list_id))].sort(),
  user_id: (c) => c.input.user ?? null,
  ip: (c) => c.input.ip ?? null,
  email: (c) => c.signals.email?.address ?? null,
  email_domain: (c) => c.signals.email?.domain ?? null,
  phone: (c) => c.input.phone ?? null,
  fingerprint_id: (c) => c.identity.fingerprint?.row.id ?? null,
  device_id: (c) => c.identity.device?.row.id ?? null,
  device_type: (c) => c.identity.deviceType,
  content_link_count: (c) => c.signals.content?.linkCount ?? 0,
  content_has_contact_info: (c) => c.signals.content?.hasContactInfo ?? false,
  // Other users who posted the same text in the last day (the current one not counted).
  content_repetition_count: (c) => c.history.content?.users ?? 0,
  content_spam_score: (c) => c.signals.content?.spamScore ?? 0,
};

/** The table as pairs, listed once rather than on every evaluation. */
const CHECK_ENTRIES = Object.entries(CHECK_FUNCTIONS) as [string, CheckFn][];

export function computeChecks(input: EvaluationInput, identity: Identity, signals: SignalSet, history: History): ChecksSnapshot {
  const ctx: CheckContext = { input, identity, signals, history, derived: derive(input, identity, history) };
  ctx.derived.travel = travelOf(ctx);
  const out: ChecksSnapshot = {};
  for (const [name, fn] of CHECK_ENTRIES) out[name] = fn(ctx);
  return out;
}

/** (list, value) memberships keyed for the policy engine's in_list: list id → check name → true. */
export function listMemberships(
  input: EvaluationInput,
  identity: Identity,
  signals: SignalSet,
  history: History,
): Map<string, Set<string>> {
  const values = listValues(input, identity, signals);
  const byValue = new Map<string, string[]>();
  for (const [check, v] of Object.entries(values))
    if (v) byValue.set(v.trim().toLowerCase(), [...(byValue.get(v.trim().toLowerCase()) ?? []), check]);
  const out = new Map<string, Set<string>>();
  for (const m of history.lists) {
    const checks = byValue.get(m.value.toLowerCase()) ?? [];
    const set = out.get(m.list_id) ?? new Set<string>();
    for (const c of checks) set.add(c);
    out.set(m.list_id, set);
  }
  return out;
}
