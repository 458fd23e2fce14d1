// What the checks need from the store, fetched in one round of parallel, indexed, bounded queries.
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import type { RecentEvaluation, UserDevice } from "../store/history.js";
import type { Repos } from "../store/repos.js";

/** Sliding windows of the velocity checks. */
export const WINDOWS = {
  user: 60 * 60 * 1000,
  ip: 10 * 60 * 1000,
  fingerprint: 10 * 60 * 1000,
  ipUsers: 60 * 60 * 1000,
  content: 24 * 60 * 60 * 1000,
  // Accounts per browser: three months covers a trial period and its repeats.
  fingerprintUsers: 90 * 24 * 60 * 60 * 1000,
};

export interface History {
  recent: RecentEvaluation[];
  seenIp: boolean;
  userEvents: number;
  ipEvents: number;
  fingerprintEvents: number;
  ipUsers: string[];
  devices: UserDevice[];
  fingerprintUsers: string[];
  tokenUsers: string[];
  lists: { list_id: string; value: string }[];
  content?: { users: number; total: number };
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
  const fp = identity.fingerprint && !identity.fingerprint.isNew ? identity.fingerprint.row.id : undefined;
  const token = input.signals.visitor_token;
  const none = Promise.resolve([] as never[]);
  const [recent, { seenIp, userEvents, ipEvents, fingerprintEvents }, ipUsers, devices, fingerprintUsers, tokenUsers, lists, content] =
    await Promise.all([
      userId ? h.recentForUser(env, userId) : none,
      h.counters(
        env,
        { userId, ip: input.ip, fingerprintId: fp },
        { user: at - WINDOWS.user, ip: at - WINDOWS.ip, fingerprint: at - WINDOWS.fingerprint },
      ),
      input.ip ? h.ipUsers(env, input.ip, at - WINDOWS.ipUsers) : none,
      userId ? h.userDevices(env, userId) : none,
      fp ? h.fingerprintUsers(env, fp, at - WINDOWS.fingerprintUsers) : none,
      token ? repos.devices.tokenUsers(env, token, identity.tokenDevices) : none,
      repos.lists.membership(
        env,
        Object.values(listValues(input, identity, signals)).filter((v): v is string => !!v),
        at,
      ),
      signals.content ? h.contentUsers(env, signals.content.hash, at - WINDOWS.content, userId ?? null) : Promise.resolve(undefined),
    ]);
  return { recent, seenIp, userEvents, ipEvents, fingerprintEvents, ipUsers, devices, fingerprintUsers, tokenUsers, lists, content };
}
