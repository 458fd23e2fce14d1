// What the checks need from the store, fetched in one round of parallel, indexed, bounded queries.

import { networkOf } from "../geo/ip.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import type { BrowserPlace, Churn } from "../store/detection.js";
import type { RecentEvaluation, TrustedPlace, UserDevice } from "../store/history.js";
import { type AttemptCounts, deviceKey } from "../store/login-attempts.js";
import type { Repos } from "../store/repos.js";
import { placeOf } from "./travel.js";

/** Sliding windows of the velocity checks. */
export const WINDOWS = {
  user: 60 * 60 * 1000,
  ip: 10 * 60 * 1000,
  fingerprint: 10 * 60 * 1000,
  ipUsers: 60 * 60 * 1000,
  content: 24 * 60 * 60 * 1000,
  // Accounts per browser: three months covers a trial period and its repeats.
  fingerprintUsers: 90 * 24 * 60 * 60 * 1000,
  // Accounts per fingerprint (identifying or not) on one address: a week, about as long as a home keeps its address.
  fingerprintIpUsers: 7 * 24 * 60 * 60 * 1000,
  // Accounts logged into from one browser: a combo list's run lasts minutes to hours; a family computer's accounts
  // are used on other evenings.
  accountsTried: 60 * 60 * 1000,
  // Logins on provisional users: a stuffing run lasts minutes to hours (a low and slow one, a day); an honest first
  // login is confirmed in seconds.
  provisionalAttempts: { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 },
  // Never-seen identifying fingerprints per IP, network and provider: an anti-detect browser's run lasts minutes to hours,
  // or, low and slow, under any hourly limit, a day.
  fingerprintChurn: { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 },
  // A browser's latest places: beyond a day, any journey is possible.
  browserPlaces: 24 * 60 * 60 * 1000,
};

/** Networks whose ASN is a provider's (shared with strangers): there the ASN's churn is counted. */
const PROVIDER_KINDS = new Set(["hosting", "vpn", "proxy"]);

export interface History {
  recent: RecentEvaluation[];
  /** The user's latest trusted evaluations with a location (travel is measured from them). */
  trusted: TrustedPlace[];
  /** Whether the user's trusted evaluations include this IP and this network. */
  familiar: { ip: boolean; network: boolean };
  /**
   * Whether the user signed in on this browser, found by its own visitor token (never a device recognised by its
   * fingerprint): its fingerprint in their trusted evaluations on this device, its device confirmed.
   */
  browser: { seen: boolean; device: boolean };
  userEvents: number;
  ipEvents: number;
  fingerprintEvents: number;
  ipUsers: string[];
  devices: UserDevice[];
  fingerprintUsers: string[];
  /** Accounts (provisional included) that logged in from the identifying fingerprint within WINDOWS.accountsTried. */
  fingerprintAccountsTried: string[];
  /** Confirmed accounts on browsers with this exact fingerprint from this IP (WINDOWS.fingerprintIpUsers). */
  fingerprintIpUsers: string[];
  tokenUsers: string[];
  /** Logins on provisional users within WINDOWS.provisionalAttempts, by this request's keys (the current one not counted). */
  attempts: AttemptCounts;
  lists: { list_id: string; value: string }[];
  content?: { users: number; total: number };
  /** New identifying fingerprints from this IP, network and provider ASN within WINDOWS.fingerprintChurn (this one included). */
  churn: Churn;
  /** Whether the user's trusted evaluations include this IP's country; null without a user, a country or any trusted country. */
  countryFamiliar: boolean | null;
  /** Whether the user's trusted evaluations came through this cloud, VPN or proxy provider's ASN; null elsewhere. */
  providerFamiliar: boolean | null;
  /**
   * Whether the user's trusted evaluations include a browser set to this time zone; null without a user, a zone that
   * names a place, or any trusted evaluation with one.
   */
  zoneFamiliar: boolean | null;
  /**
   * Whether the user's trusted evaluations include a browser set to this language (navigator.language); null without
   * a user, a language, or any trusted evaluation with one.
   */
  languageFamiliar: boolean | null;
  /**
   * Where the browser was within WINDOWS.browserPlaces, newest first, whoever it named: its identifying, non-popular
   * fingerprint's latest evaluations, and the last address of each device of its visitor token and of this device.
   */
  browserPlaces: BrowserPlace[];
}

/** The values of this request that lists may hold, by the check that names them. */
export function listValues(input: EvaluationInput, identity: Identity, signals: SignalSet): Record<string, string | undefined> {
  return {
    user_id: input.user,
    ip: input.ip,
    email: signals.email?.address,
    email_domain: signals.email?.domain,
    phone: input.phone,
    fingerprint_id: identity.fingerprint?.row.id,
    device_id: identity.device?.row.id,
    ip_country: signals.geolocation?.country_code,
  };
}

export async function gatherHistory(repos: Repos, input: EvaluationInput, identity: Identity, signals: SignalSet): Promise<History> {
  const env = input.env.id;
  const at = input.at;
  const h = repos.history;
  const userId = identity.user?.id;
  const fingerprint = identity.fingerprint;
  const fp = fingerprint && !fingerprint.isNew ? fingerprint.row.id : undefined;
  // Only an identifying fingerprint that is not popular links accounts (SPEC.md 13).
  const linking = fp && fingerprint?.identifying && !fingerprint.popular ? fp : undefined;
  const token = input.signals.visitor_token;
  const device = identity.device && !identity.device.isNew ? identity.device.row.id : undefined;
  // Whether the user signed in on this browser is asked of the device found by the request's own visitor token only: a
  // device recognised by its fingerprint is someone's who has the user's components (docs/identity.md).
  const ownDevice = identity.device?.recognised ? undefined : device;
  const none = Promise.resolve([] as never[]);
  const here = signals.network;
  const geo = signals.geolocation;
  const country = geo?.country_code;
  const providerAsn = geo?.network && PROVIDER_KINDS.has(geo.network) ? geo.asn : undefined;
  const [
    { recent, trusted },
    scalars,
    ipUsers,
    devices,
    fingerprintAccounts,
    fingerprintIpUsers,
    tokenUsers,
    lists,
    content,
    churn,
    countries,
    provider,
    fingerprintPlaces,
  ] = await Promise.all([
    userId ? h.recentAndTrusted(env, userId) : { recent: [], trusted: [] },
    // Velocity, familiarity and login attempts: one statement of numbers.
    h.scalars(
      env,
      // Velocity is counted by the customer's user id and the fingerprint even when new (not stored yet): the first
      // evaluation of a burst counts for the others.
      {
        userId,
        externalUser: input.user ?? identity.user?.external_id,
        ip: input.ip,
        fingerprintId: identity.fingerprint?.row.id,
        deviceId: ownDevice,
      },
      { user: at - WINDOWS.user, ip: at - WINDOWS.ip, fingerprint: at - WINDOWS.fingerprint },
      at,
      userId && input.ip && here ? { userId, ip: input.ip, network: here.prefix, asn: here.asn } : undefined,
      {
        keys: { deviceKey: deviceKey(token, device), fingerprintId: fp, ip: input.ip, network: networkOf(input.ip) },
        since: { hour: at - WINDOWS.provisionalAttempts.hour, day: at - WINDOWS.provisionalAttempts.day },
      },
      { zone: signals.timezone.zone, language: signals.language },
    ),
    input.ip ? h.ipUsers(env, input.ip, at - WINDOWS.ipUsers) : none,
    userId ? h.userDevices(env, userId) : none,
    linking
      ? repos.fingerprints.users(env, linking, at - WINDOWS.fingerprintUsers, at - WINDOWS.accountsTried)
      : { confirmed: [], triedSince: [] },
    fingerprint && input.ip
      ? repos.fingerprints.confirmedUsersAtIp(env, fingerprint.row.exact_hash, input.ip, at - WINDOWS.fingerprintIpUsers)
      : none,
    token ? confirmedTokenUsers(repos, env, token, identity) : none,
    repos.lists.membership(
      env,
      Object.values(listValues(input, identity, signals)).filter((v): v is string => !!v),
      at,
    ),
    signals.content ? h.contentUsers(env, signals.content.hash, at - WINDOWS.content, userId ?? null) : Promise.resolve(undefined),
    input.source === "client" && input.ip
      ? repos.detection.fingerprintChurn(
          env,
          {
            ip: input.ip,
            network: here?.prefix,
            provider: providerAsn,
          },
          !!fingerprint?.isNew && fingerprint.identifying,
          at,
          WINDOWS.fingerprintChurn,
        )
      : Promise.resolve({ hour: { ip: 0, network: 0, provider: 0 }, day: { ip: 0, network: 0, provider: 0 } }),
    userId && country ? repos.detection.countryFamiliarity(env, userId, country) : Promise.resolve(undefined),
    providerAsn === undefined
      ? Promise.resolve(null)
      : userId
        ? repos.detection.providerFamiliarity(env, userId, providerAsn)
        : Promise.resolve(false),
    // Only where this address places anyone: from a VPN, proxy, Tor, datacenter or carrier exit nothing is measured.
    linking && input.ip && placeOf(geo, at) ? repos.detection.fingerprintPlaces(env, linking, at - WINDOWS.browserPlaces) : none,
  ]);
  const { userEvents, ipEvents, fingerprintEvents, familiar, browser, attempts } = scalars;
  return {
    recent,
    trusted,
    familiar,
    browser,
    userEvents,
    ipEvents,
    fingerprintEvents,
    ipUsers,
    devices,
    fingerprintUsers: fingerprintAccounts.confirmed,
    fingerprintAccountsTried: fingerprintAccounts.triedSince,
    fingerprintIpUsers,
    tokenUsers,
    lists,
    content,
    attempts,
    churn,
    countryFamiliar: countries?.any ? countries.seen : null,
    providerFamiliar: provider,
    zoneFamiliar: scalars.zone,
    languageFamiliar: scalars.language,
    browserPlaces: input.ip ? placesOfBrowser(identity, fingerprintPlaces, at - WINDOWS.browserPlaces) : [],
  };
}

/**
 * Where the browser was since `since`, newest first: the fingerprint's places, and each device of the visitor token
 * (one per account it named) and this request's device at its last address. A token is one browser's storage; the
 * fingerprint's places are read only while it is identifying and not popular (SPEC.md 13).
 */
function placesOfBrowser(identity: Identity, fingerprintPlaces: BrowserPlace[], since: number): BrowserPlace[] {
  const devices = [...(identity.tokenDevices ?? []), ...(identity.device && !identity.device.isNew ? [identity.device.row] : [])];
  const places = [...fingerprintPlaces];
  for (const d of devices)
    if (d.last_ip && d.last_seen_at != null && Number(d.last_seen_at) >= since) places.push({ ip: d.last_ip, at: Number(d.last_seen_at) });
  return places.sort((a, b) => b.at - a.at);
}

/** The accounts behind the visitor token's devices, provisional users left out (the current user is counted apart). */
async function confirmedTokenUsers(repos: Repos, env: string, token: string, identity: Identity): Promise<string[]> {
  const users = await repos.devices.tokenUsers(env, token, identity.tokenDevices);
  const others = users.filter((u) => u !== identity.user?.id);
  if (others.length === 0) return users;
  const confirmed = new Set(await repos.users.confirmedAmong(others));
  return users.filter((u) => u === identity.user?.id || confirmed.has(u));
}
