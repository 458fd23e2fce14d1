// Users as the console and scripts look them up (docs/console.md): search (GET /v3/users?query=) and one user's timeline
// (GET /v3/users/:id): the profile, devices, latest evaluations and challenges, and the lists holding them.
import type { UserDetail, UserSummary } from "@tessera/sdk/contract";
import type { ChallengeService } from "../challenges/service.js";
import type { DevicesService } from "../domain/devices.js";
import { groupsOf } from "../domain/users.js";
import { notFound, userNotFound } from "../errors.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { iso } from "../time.js";
import { toWireEvaluations } from "../wire/evaluations.js";

/** Latest evaluations and challenges on the timeline; older ones are a page of GET /v3/evaluations?user= away. */
const TIMELINE_ITEMS = 50;

/** What a user is looked up with: the repositories, and the services that answer its devices and challenges. */
export type UserLookupServices = { repos: Repos; devices: DevicesService; challenges: ChallengeService };

export function toUserSummary(u: UserRow): UserSummary {
  return {
    service_id: u.id,
    id: u.external_id,
    ...(u.email ? { email: u.email } : {}),
    ...(u.phone ? { phone: u.phone } : {}),
    email_verified: u.email_verified === 1,
    phone_verified: u.phone_verified === 1,
    createdAt: iso(Number(u.created_at)),
    updatedAt: iso(Number(u.updated_at)),
  };
}

export async function searchUsers(services: UserLookupServices, environmentId: string, query: string | undefined, limit: number) {
  return { data: (await services.repos.userSearch.search(environmentId, query, limit)).map(toUserSummary) };
}

export async function userTimeline(services: UserLookupServices, environmentId: string, externalId: string): Promise<UserDetail> {
  const { repos } = services;
  const user = await repos.users.findByExternal(environmentId, externalId);
  if (!user) throw userNotFound(externalId);
  const env = await repos.projects.environmentById(environmentId);
  if (!env) throw notFound("Environment");
  const [devices, rows, challenges] = await Promise.all([
    services.devices.listForUser(environmentId, externalId),
    repos.evaluationSearch.search({ environmentId, userIds: [user.id], limit: TIMELINE_ITEMS }),
    services.challenges.list(env, { page: 1, limit: TIMELINE_ITEMS, user: externalId }),
  ]);
  // The values a list may hold for this user: ids, contacts, and their devices' and fingerprints' ids.
  const values: Record<string, string[]> = {
    user_id: [user.external_id],
    email: user.email ? [user.email] : [],
    email_domain: user.email?.includes("@") ? [user.email.split("@")[1]!] : [],
    phone: user.phone ? [user.phone] : [],
    device_id: devices.map((d) => d.id),
  };
  const byValue = new Map<string, string>();
  for (const [check, vs] of Object.entries(values)) for (const v of vs) byValue.set(v.toLowerCase(), check);
  const members = await repos.lists.membership(environmentId, [...byValue.keys()], Date.now());
  return {
    ...toUserSummary(user),
    metadata: JSON.parse(user.metadata) as Record<string, unknown>,
    groups: groupsOf(user),
    devices,
    evaluations: toWireEvaluations(rows, await repos.evaluationSearch.related(rows)),
    challenges: challenges.data,
    lists: members.map((m) => ({ list: m.list_id, value: m.value, check: byValue.get(m.value.toLowerCase()) ?? "" })),
  };
}
