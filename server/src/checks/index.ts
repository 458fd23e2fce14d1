// The checks (SPEC.md 6): named facts computed from the signals and the history, stored as the evaluation's
// `checks` snapshot and tested by risks and policies. One table, one line per check; the names and types are the
// contract's catalogue (sdk/src/contract/checks.ts).
import type { CheckName, ChecksSnapshot } from "@tessera/sdk/contract";
import { geo } from "../geo/index.js";
import { networkOf } from "../geo/ip.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import { type History, listValues } from "./history.js";
import { otherSessions, type Sessions } from "./sharing.js";
import { isImpossible, type Place, placeOf, travelBetween } from "./travel.js";

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
  /** The browser's own travel from its latest place, whoever it named there (see browserTravel). */
  browserTravel?: { km: number; kmh: number };
  /** Kilometres from the nearest trusted place in this country (see distanceFromTrusted). */
  fromTrusted?: number;
  sessions: Sessions;
  /** The device limit of the account-sharing policy that applies (sharing.ts). */
  deviceLimit: number;
}

/** Velocity limits per window (see WINDOWS): beyond any person's pace, well within a script's. */
const HIGH_VELOCITY = { user: 60, ip: 120, fingerprint: 60 };

function countDevice(counts: Derived["deviceCounts"], type: string): void {
  counts.all++;
  if (type === "computer" || type === "tablet" || type === "mobile") counts[type]++;
}

/**
 * A device counts among an account's devices while it is in use: seen within the last 30 days, and either used over
 * more than an hour (a browser that keeps coming back) or active within the last hour. A private window or a browser
 * that lost its token makes a device of a single visit (SPEC.md 13): it stops counting an hour after it was used.
 */
const DEVICE_STALE_MS = 30 * 24 * 3600 * 1000;
const DEVICE_ESTABLISHED_MS = 3600 * 1000;

function inUse(d: History["devices"][number], at: number): boolean {
  if (d.last_seen_at == null || at - d.last_seen_at > DEVICE_STALE_MS) return false;
  return d.last_seen_at - d.created_at >= DEVICE_ESTABLISHED_MS || at - d.last_seen_at < DEVICE_ESTABLISHED_MS;
}

/**
 * A device replaced by another of its type: never seen again once the newer one appeared, after at least
 * REPLACED_AFTER_MS of silence. That is one browser that lost its storage (Safari's 7-day cap, cleared cookies: a phone
 * whose fingerprint its whole model shares comes back as a new device) or a phone replaced by a new one: one device in
 * use, not two. Devices used side by side (two computers, a friend's browser) are each seen after the other appeared.
 */
const REPLACED_AFTER_MS = 12 * 3600 * 1000;

function superseded(d: History["devices"][number], others: Array<{ id: string; type: string; created_at: number }>): boolean {
  if (d.last_seen_at == null) return false;
  const seen = d.last_seen_at;
  return others.some((e) => e.id !== d.id && e.type === d.type && e.created_at >= seen + REPLACED_AFTER_MS);
}

function derive(input: EvaluationInput, identity: Identity, signals: SignalSet, h: History, deviceLimit: number): Derived {
  const user = identity.user;
  const device = identity.device;
  // A device recognised by its fingerprint is the user's for counting, and new for trust: anyone can present the
  // user's components, only the device's own visitor token is the user's browser (docs/identity.md).
  const deviceIsNewForUser =
    !device || device.isNew || !!device.recognised || !user || device.row.user_id !== user.id || device.row.status === "detached";
  // The account's other devices in use are those the user signed in on: a browser that only named the user on a
  // page (the client id is public) neither fills the account up nor puts the owner over the limit.
  const attached = h.devices.filter((d) => d.status === "attached" && d.confirmed && d.id !== device?.row.id);
  const counts = { all: 0, computer: 0, tablet: 0, mobile: 0 };
  // The current device replaces an older one of its type as well (it is new, or was created after it).
  const current = device
    ? [{ id: device.row.id, type: identity.deviceType, created_at: device.isNew ? input.at : Number(device.row.created_at) }]
    : [];
  for (const d of attached) if (inUse(d, input.at) && !superseded(d, [...attached, ...current])) countDevice(counts, d.type);
  // The current device counts for a known user and for a new one (it joins the account with this evaluation).
  if ((user || identity.userIsNew) && device) countDevice(counts, identity.deviceType);
  const sessions = otherSessions(input, identity, signals, h.devices);
  return { deviceIsNewForUser, deviceCounts: counts, sessions, deviceLimit };
}

/** One of the user's latest trusted places that place the user somewhere, or that are this network. */
interface TrustedSpot {
  /** Where it placed the user (not a VPN, proxy, Tor, datacenter or carrier exit). */
  place?: Place;
  country: string | null;
  /** It is this network (the same address or /24): one site, whatever its geolocation. */
  here: boolean;
}

/**
 * The user's latest trusted places, newest first. An earlier place's network kind and accuracy are looked up again
 * from its IP (the same offline data, cached); its coordinates and country are those it was stored with.
 */
function trustedPlaces(ctx: CheckContext): TrustedSpot[] {
  const network = ctx.signals.network?.prefix;
  const out: TrustedSpot[] = [];
  for (const prev of ctx.history.trusted) {
    if (!prev.ip) continue;
    const here = prev.ip === ctx.input.ip || (!!network && prev.network === network);
    const place = placeOf(geo().lookup(prev.ip), prev.created_at, { lat: prev.latitude, lon: prev.longitude });
    if (here || place) out.push({ place, country: prev.country_code, here });
  }
  return out;
}

/**
 * Travel from the user's latest trusted place that is somewhere. When that place is this network, the user was last
 * seen here and nothing was travelled.
 */
function travelOf(here: Place, spots: TrustedSpot[]): { km: number; kmh: number } | undefined {
  const last = spots[0];
  return last?.place && !last.here ? travelBetween(last.place, here) : undefined;
}

/**
 * Kilometres from here to the nearest of the user's latest trusted places in this IP's country, beyond both accuracy
 * radii (0 on one of their networks, or within the radii); undefined when this IP places no one or the user has no
 * such place in this country (a trip's places say nothing about where at home the user lives; a carrier's exit says
 * nothing about where the phone was). A residential proxy "in the victim's country" is seldom in the victim's region.
 */
function distanceFromTrusted(here: Place, country: string | undefined, spots: TrustedSpot[]): number | undefined {
  if (!country) return undefined;
  const inCountry = spots.filter((s) => s.here || s.country === country);
  if (inCountry.length === 0) return undefined;
  return Math.min(...inCountry.map((s) => (s.here || !s.place ? 0 : travelBetween(s.place, here).km)));
}

/**
 * Travel from the browser's latest place within the day that places anyone (history.browserPlaces: its identifying,
 * non-popular fingerprint's evaluations and its devices' last addresses, whatever account it named and whatever the
 * verdict) to here. One browser profile driven through a residential proxy network is in Madrid, then Sydney, then
 * Osaka within a few hours; a laptop on a trip is carried. Undefined when the browser was last on this network, or was
 * placed nowhere within the day.
 */
function browserTravel(ctx: CheckContext, here: Place): { km: number; kmh: number } | undefined {
  const network = networkOf(ctx.input.ip);
  for (const prev of ctx.history.browserPlaces) {
    if (network && networkOf(prev.ip) === network) return undefined;
    const place = placeOf(geo().lookup(prev.ip), prev.at, prev.coordinates);
    if (place) return travelBetween(place, here);
  }
  return undefined;
}

const DAY = 24 * 3600 * 1000;

/** How many distinct users, counting the current one, a set of user ids represents. */
function withCurrent(users: string[], current: string | undefined, isNewUser: boolean): number {
  const set = new Set(users);
  if (current) set.add(current);
  else if (isNewUser) return set.size + 1;
  return set.size;
}

/**
 * The request's account as account figures count it (SPEC.md 13): a confirmed user, or a new account created other
 * than by a login. A provisional user (first seen on a login, not yet confirmed by the backend) is not an account.
 */
function countedAccount(c: CheckContext): { id?: string; isNew: boolean } {
  const user = c.identity.user;
  if (user) return user.provisional === 1 ? { isNew: false } : { id: user.id, isNew: false };
  const creates = c.identity.userIsNew && (!!c.input.user || !!c.identity.emailKey);
  return { isNew: creates && c.input.action !== "login" };
}

const isProvisional = (c: CheckContext): boolean =>
  c.identity.user ? c.identity.user.provisional === 1 : c.identity.userIsNew && c.input.action === "login";

/** Logins on provisional users by one key, this one included when it is one. */
const attempts = (c: CheckContext, key: keyof History["attempts"], present: boolean): number =>
  present ? c.history.attempts[key] + (c.input.action === "login" && isProvisional(c) ? 1 : 0) : 0;

type CheckFn = (c: CheckContext) => ChecksSnapshot[string];

export const CHECK_FUNCTIONS: Partial<Record<CheckName, CheckFn>> = {
  action: (c) => c.input.action,
  is_new_user: (c) => c.identity.userIsNew,
  // New for this user: a browser the user never signed in on (a known fingerprint of someone else's is still new).
  // Signed in: the device found by the request's own visitor token is one the user signed in on, or had a trusted
  // evaluation with this fingerprint (store/history.ts, trusted history). The client id is public: a stranger's browser
  // that merely named the user on a page stays new, or its login would skip what a new browser meets; and the user's
  // components are anyone's who ran a script on a page the user visited, so the user's own fingerprint on a new
  // token (a device recognised by it) is new too, until the backend vouches for that token. A fingerprint that is not identifying says
  // nothing by itself (every phone of a model shares it): the device decides. A backend evaluation naming no browser
  // (no `evaluation` or `fingerprint`) has none to judge: null, unknown, which `eq true` and `eq false` both leave
  // alone. A browser sending too little to fingerprint is new: stripping the components must not make a stranger
  // look familiar.
  is_new_fingerprint: (c) => {
    const fp = c.identity.fingerprint;
    if (!fp) return c.input.source === "server" ? null : true;
    if (fp.isNew) return true;
    if (!c.identity.user) return false;
    const signedInDevice = !c.derived.deviceIsNewForUser && c.history.browser.device;
    if (!fp.identifying || fp.popular) return !signedInDevice;
    return !signedInDevice && !c.history.browser.seen;
  },
  is_new_device: (c) => c.derived.deviceIsNewForUser,
  // Both from the user's trusted evaluations only (vouched for by the backend or a passed challenge, or let in on a
  // device the user signed in on: store/history.ts): an attacker's attempts never make their IP or network familiar. is_new_ip is per address; is_new_network per /24 (/48), or per
  // ASN for networks that belong to their users (a carrier, an ISP, a company), so a phone hopping across its
  // carrier's pool or the second exit of one corporate gateway is not new. Unknown without an IP.
  is_new_ip: (c) => (c.identity.user ? !c.history.familiar.ip : true),
  is_new_network: (c) => (!c.signals.network ? null : c.identity.user ? !c.history.familiar.network : true),
  user_age_days: (c) => (c.identity.user ? Math.floor((c.input.at - Number(c.identity.user.created_at)) / DAY) : 0),
  fingerprint_confidence: (c) => c.identity.fingerprint?.confidence ?? 0,
  // Accounts (not provisional users) on this browser: over the identifying, non-popular fingerprint (SPEC.md 13), else
  // the current account alone; and over the visitor token's devices.
  fingerprint_user_count: (c) => {
    if (!c.identity.fingerprint) return 0;
    const me = countedAccount(c);
    return withCurrent(
      c.history.fingerprintUsers.filter((u) => u !== c.identity.user?.id),
      me.id,
      me.isNew,
    );
  },
  // Accounts logged into from this browser within the hour, whatever they are (known, unknown, confirmed or not), this
  // one included on a login: over the identifying, non-popular fingerprint only (a phone model's is every owner's).
  fingerprint_accounts_tried: (c) => {
    const fp = c.identity.fingerprint;
    if (!fp?.identifying || fp.popular) return 0;
    const others = c.history.fingerprintAccountsTried.filter((u) => u !== c.identity.user?.id);
    const me = c.input.action === "login" && (c.identity.user || c.input.user) ? 1 : 0;
    return others.length + me;
  },
  // Accounts on browsers with exactly these components from this IP within a week, identifying or not: a phone whose
  // model every other phone shares still names one browser on one home's address once its storage is cleared.
  fingerprint_ip_user_count: (c) => {
    if (!c.identity.fingerprint || !c.input.ip) return 0;
    const me = countedAccount(c);
    return withCurrent(
      c.history.fingerprintIpUsers.filter((u) => u !== c.identity.user?.id),
      me.id,
      me.isNew,
    );
  },
  device_user_count: (c) => {
    if (!c.input.signals.visitor_token) return 0;
    const me = countedAccount(c);
    return withCurrent(
      c.history.tokenUsers.filter((u) => u !== c.identity.user?.id),
      me.id,
      me.isNew,
    );
  },
  is_provisional_user: (c) => isProvisional(c),
  device_provisional_attempts: (c) => attempts(c, "device", !!c.identity.device),
  fingerprint_provisional_attempts: (c) => attempts(c, "fingerprint", !!c.identity.fingerprint),
  ip_provisional_attempts: (c) => attempts(c, "ip", !!c.input.ip),
  network_provisional_attempts: (c) => attempts(c, "network", !!networkOf(c.input.ip)),
  // The same over the day: one attempt every 20 minutes is three an hour, and 72 a day.
  device_provisional_attempts_day: (c) => attempts(c, "deviceDay", !!c.identity.device),
  fingerprint_provisional_attempts_day: (c) => attempts(c, "fingerprintDay", !!c.identity.fingerprint),
  ip_provisional_attempts_day: (c) => attempts(c, "ipDay", !!c.input.ip),
  network_provisional_attempts_day: (c) => attempts(c, "networkDay", !!networkOf(c.input.ip)),
  ip_user_count: (c) =>
    c.input.ip ? withCurrent(c.history.ipUsers, c.identity.user?.id ?? (c.input.user ? "__new__" : undefined), false) : 0,
  // A VPN provider's network. A browser time zone far from the IP is not one: a traveller's laptop keeps its home
  // zone (that is `timezone_mismatch`, a weak check of its own).
  ip_is_vpn: (c) => c.signals.geolocation?.network === "vpn",
  ip_is_proxy: (c) => c.signals.geolocation?.network === "proxy" || c.signals.forwarding.proxied,
  ip_is_tor: (c) => c.signals.geolocation?.tor === true || c.signals.geolocation?.network === "tor",
  ip_is_hosting: (c) => c.signals.geolocation?.network === "hosting",
  // Networks that hide who is behind them. A proxy that announces itself in the headers is transparent (it is
  // `ip_is_proxy`), and a far time zone is a traveller as often as a VPN (`timezone_mismatch`).
  ip_is_anonymous: (c) =>
    c.signals.geolocation?.network === "vpn" ||
    c.signals.geolocation?.network === "proxy" ||
    c.signals.geolocation?.network === "tor" ||
    c.signals.geolocation?.tor === true,
  ip_country: (c) => c.signals.geolocation?.country_code ?? null,
  // A country the user was never let in from on an ordinary network (trusted history, as is_new_network); null when the
  // user has no such evaluation yet, the IP has no country, or it is a VPN, proxy, Tor or datacenter exit.
  is_new_country: (c) => {
    const g = c.signals.geolocation;
    // An exit of a VPN, a proxy, Tor or a datacenter is no country the user is in (those are their own checks).
    if (g?.tor === true || (g?.network !== undefined && ["vpn", "proxy", "tor", "hosting"].includes(g.network))) return null;
    return c.identity.user && c.history.countryFamiliar !== null ? !c.history.countryFamiliar : null;
  },
  // Through a cloud, VPN or proxy provider the user was never let in through (its ASN); null on other networks. The
  // second exit of a corporate gateway or of a VPN subscription is the same provider.
  is_new_provider: (c) => (c.history.providerFamiliar === null ? null : !c.history.providerFamiliar),
  // A time zone no browser the user was let in from was set to (trusted history, as is_new_country); null when the user
  // has no such evaluation yet, or the browser names no place (none, an unknown zone, UTC or an Etc/ offset: what
  // privacy browsers and Tor report for everyone). A VPN moves the exit, not the zone of the computer behind it; a
  // stranger with the account's password is set to their own zone, or their proxy's.
  is_new_timezone: (c) => (c.history.zoneFamiliar === null ? null : !c.history.zoneFamiliar),
  // A language no browser the user was let in from was set to (navigator.language, canonical): null without a user, a
  // language, or a trusted evaluation with one (migration 24). A phone abroad keeps its owner's language.
  is_new_language: (c) => (c.history.languageFamiliar === null ? null : !c.history.languageFamiliar),
  // Fingerprint churn: never-seen identifying fingerprints first presented from this IP, its /24 (/48), or its cloud,
  // VPN or proxy provider's ASN in the last hour, this one included. An anti-detect browser draws a new canvas, GPU,
  // audio and fonts on every attempt; honest browsers are new once.
  ip_new_fingerprints: (c) => c.history.churn.hour.ip,
  network_new_fingerprints: (c) => c.history.churn.hour.network,
  provider_new_fingerprints: (c) => c.history.churn.hour.provider,
  // The same over the day: an anti-detect run paced under any hourly count (low and slow) still draws a new browser
  // per attempt.
  ip_new_fingerprints_day: (c) => c.history.churn.day.ip,
  network_new_fingerprints_day: (c) => c.history.churn.day.network,
  provider_new_fingerprints_day: (c) => c.history.churn.day.provider,
  impossible_travel: (c) => isImpossible(c.derived.travel),
  travel_speed_kmh: (c) => (c.derived.travel ? Math.round(c.derived.travel.kmh) : 0),
  // The browser itself (its device, or its identifying, non-popular fingerprint) was, within the day, where it could not
  // have left in time to be here (the travel rule above), whatever account it named there: one browser profile driven
  // through a residential proxy network. Any evaluation counts, an account never met's and a failed login's too.
  browser_impossible_travel: (c) => isImpossible(c.derived.browserTravel),
  // Kilometres from the nearest of the user's latest trusted places (allowed, or verified) in this IP's country, beyond
  // both accuracy radii; null when this IP places no one (a VPN, proxy, Tor, datacenter or carrier exit) or the user
  // has no such place in this country. An owner's new browser at the office or at a friend's is near home.
  distance_from_trusted_km: (c) => (c.derived.fromTrusted === undefined ? null : Math.round(c.derived.fromTrusted)),
  concurrent_sessions: (c) => c.derived.sessions.concurrent,
  session_impossible_travel: (c) => c.derived.sessions.farApart,
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
  device_limit: (c) => c.derived.deviceLimit,
  devices_over_limit: (c) => Math.max(0, c.derived.deviceCounts.all - c.derived.deviceLimit),
  email_is_disposable: (c) => c.signals.email?.disposable ?? false,
  email_is_webmail: (c) => c.signals.email?.webmail ?? false,
  email_is_invalid: (c) => c.signals.email?.invalid ?? false,
  is_email_verified: (c) => c.identity.user?.email_verified === 1,
  is_phone_verified: (c) => c.identity.user?.phone_verified === 1,
  // A backend names its users with its secret; a browser, with a valid user_token.
  identity_verified: (c) => (c.input.source === "server" ? c.input.user !== undefined : c.input.identityVerified === true),
  // The browser named a contact other than the stored one: never written to the user (store/users.ts), kept here.
  contact_mismatch: (c) => {
    const user = c.identity.user;
    if (c.input.source !== "client" || !user) return false;
    const { email, phone } = c.input;
    return (
      (email !== undefined && user.email !== null && email.toLowerCase() !== user.email.toLowerCase()) ||
      (phone !== undefined && user.phone !== null && phone !== user.phone)
    );
  },
  // A bot by its own markers, its user agent, a headless window, or a forged user agent on a machine that draws
  // without a GPU or has hardware no device has. A software renderer or a user-agent switcher alone is not a bot.
  is_bot: (c) =>
    c.signals.automation.detected ||
    c.signals.userAgent.bot ||
    c.signals.window.headless.length > 0 ||
    (c.signals.clientHints.mismatches.length > 0 && (c.signals.renderer.software || c.signals.hardware.implausible.length > 0)),
  bot_user_agent: (c) => c.signals.userAgent.bot,
  client_automation: (c) => c.signals.automation.detected,
  // Server-side bot checks (issue 15): what the browser reports against what its user agent claims (signals/).
  user_agent_mismatch: (c) => c.signals.clientHints.mismatches.length > 0,
  software_renderer: (c) => c.signals.renderer.software,
  headless_window: (c) => c.signals.window.headless.length > 0,
  implausible_hardware: (c) => c.signals.hardware.implausible.length > 0,
  timezone_mismatch: (c) => c.signals.timezone.mismatch,
  timezone_in_ip_country: (c) => c.signals.timezone.local ?? null,
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

export function computeChecks(
  input: EvaluationInput,
  identity: Identity,
  signals: SignalSet,
  history: History,
  options: { deviceLimit: number },
): ChecksSnapshot {
  const derived = derive(input, identity, signals, history, options.deviceLimit);
  const ctx: CheckContext = { input, identity, signals, history, derived };
  // Both measure from here: an address that places no one (a VPN, proxy, Tor, datacenter or carrier exit) needs no
  // look-up of the user's places.
  const here = placeOf(signals.geolocation, input.at);
  if (here) {
    const places = trustedPlaces(ctx);
    ctx.derived.travel = travelOf(here, places);
    ctx.derived.fromTrusted = distanceFromTrusted(here, signals.geolocation?.country_code, places);
    ctx.derived.browserTravel = browserTravel(ctx, here);
  }
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
