// Users (docs/server-api.md, docs/challenges.md): partial updates from the customer's backend, and conversions — a sharer who chose
// "create my own account" on a device and later signs up from it as a new user (`user.converted`).
import { type Group, Metadata, type UserUpdateRequest } from "@tessera/sdk/contract";
import * as z from "zod/mini";
import { badRequest, conflict } from "../errors.js";
import { accountEmailKey } from "../pipeline/account-email.js";
import type { EvaluationStep, EventSink } from "../pipeline/ports.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { iso, now } from "../time.js";

/**
 * The groups a user update names, as stored: one object per group id (a bare id is a group with only its id, a single
 * object a list of one); a group named twice keeps its last form.
 */
export function normaliseGroups(groups: NonNullable<UserUpdateRequest["groups"]>): Group[] {
  const byId = new Map<string, Group>();
  for (const g of Array.isArray(groups) ? groups : [groups]) {
    const group: Group = typeof g === "string" ? { id: g } : { id: g.id };
    if (typeof g !== "string" && g.name !== undefined) group.name = g.name;
    if (typeof g !== "string" && g.metadata !== undefined) group.metadata = g.metadata;
    byId.delete(group.id);
    byId.set(group.id, group);
  }
  return [...byId.values()];
}

/** A user's stored groups (rows written before group objects hold bare ids). */
export function groupsOf(u: Pick<UserRow, "groups">): Group[] {
  return (JSON.parse(u.groups) as (string | Group)[]).map((g) => (typeof g === "string" ? { id: g } : g));
}

/**
 * `patch` merged into `stored` (POST /v3/user/:id/update: only the sent fields change, key by key): a key sent is set,
 * a key sent as `null` is removed, a key not sent stays. The result is bounded like any metadata (400 naming it).
 */
export function mergeMetadata(stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const bounded = z.safeParse(Metadata, merged);
  if (!bounded.success) {
    const issue = bounded.error.issues[0];
    throw badRequest(`Invalid metadata once merged with the stored keys: ${issue?.message ?? "out of bounds"}`, "metadata");
  }
  return merged;
}

/** What an update did: created the user, changed fields of it, or found it as sent (nothing written). */
export type UserUpdateOutcome = "created" | "updated" | "unchanged";

/** The user object of `user.*` webhook payloads. */
export function toEventUser(u: UserRow): Record<string, unknown> {
  return {
    service_id: u.id,
    id: u.external_id,
    ...(u.email ? { email: u.email } : {}),
    ...(u.phone ? { phone: u.phone } : {}),
    metadata: JSON.parse(u.metadata) as Record<string, unknown>,
    // Webhook users carry the group ids (their names and metadata are on GET /v3/users/:id).
    groups: groupsOf(u).map((g) => g.id),
    ...(u.converted_at != null ? { converted_at: iso(u.converted_at) } : {}),
    createdAt: iso(u.created_at),
    updatedAt: iso(u.updated_at),
  };
}

export class UsersService {
  constructor(
    private readonly repos: Repos,
    private readonly events: EventSink,
  ) {}

  /**
   * The backend sets a user's contacts, metadata and groups; only the sent fields change. A user Tessera has not met
   * yet is created with them: a backend pushes its existing accounts' contacts before any browser names them, so that
   * no first client evaluation decides where their codes go (docs/security.md).
   */
  async update(environmentId: string, externalId: string, req: UserUpdateRequest): Promise<UserUpdateOutcome> {
    // Read, merge, write compare-and-set on the metadata read: two concurrent merges never lose each other's keys.
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.updateOnce(environmentId, externalId, req);
      if (outcome !== "conflict") return outcome;
      // Five lost races in a row: writers of this user keep colliding. Saying so (409, retryable) beats a 500.
      if (attempt >= 4) throw conflict("conflict", `User ${externalId} was being changed by other requests meanwhile: retry the update`);
    }
  }

  private async updateOnce(environmentId: string, externalId: string, req: UserUpdateRequest): Promise<UserUpdateOutcome | "conflict"> {
    let user = await this.repos.users.findByExternal(environmentId, externalId);
    let created = false;
    if (!user) {
      // Refused before the user is created: a bad update leaves no half-made user behind.
      if (req.metadata) mergeMetadata({}, req.metadata);
      const { email, phone } = req;
      const result = await this.repos.users.upsert(environmentId, externalId, {
        source: "server",
        ...(email ? { email } : {}),
        ...(phone ? { phone } : {}),
      });
      user = result.user;
      created = result.created;
    }
    const patch: Partial<UserRow> = {};
    if (req.email !== undefined && req.email !== user.email)
      Object.assign(patch, { email: req.email, email_verified: 0, email_key: req.email === null ? null : accountEmailKey(req.email) });
    if (req.phone !== undefined && req.phone !== user.phone) Object.assign(patch, { phone: req.phone, phone_verified: 0 });
    if (req.metadata !== undefined) {
      const metadata = JSON.stringify(mergeMetadata(JSON.parse(user.metadata) as Record<string, unknown>, req.metadata));
      if (metadata !== user.metadata) patch.metadata = metadata;
    }
    if (req.groups !== undefined) {
      const groups = JSON.stringify(normaliseGroups(req.groups));
      if (groups !== user.groups) patch.groups = groups;
    }
    // The backend updating a user with its secret vouches for the account (docs/identity.md).
    if (user.provisional === 1) patch.provisional = 0;
    if (Object.keys(patch).length === 0) return created ? "created" : "unchanged";
    patch.updated_at = now();
    if (!(await this.repos.userData.updateIf(user.id, { metadata: user.metadata }, patch))) return "conflict";
    return created ? "created" : "updated";
  }

  /**
   * Records, in the challenge's transaction, that the sharer on `deviceId` chose "create my own account"
   * rather than keep using `fromUserId`'s account. The challenges area calls this.
   */
  async markConversionIntent(m: {
    environmentId: string;
    deviceId: string;
    fromUserId?: string | null;
    challengeId?: string | null;
  }): Promise<void> {
    await this.repos.identifications.markConversion({ ...m, at: now() });
  }

  /**
   * Pipeline step, in the evaluation's transaction: a signup by a new account from a marked device is a conversion
   * (emitted once), whether the sign-up names the account's id or only its email (the account the email makes).
   */
  readonly onEvaluation: EvaluationStep = async (result, input, identity) => {
    if (input.action !== "signup") return;
    // A device this evaluation created has no marker: no read (on PostgreSQL it would send the write batch and open the
    // transaction, `begin` and `commit` around it: docs/decisions/write-batch.md).
    if (identity.device?.isNew) return;
    const account = result.evaluation.user?.service_id;
    if (!account) return;
    const deviceId = result.evaluation.device ?? identity.device?.row.id;
    if (!deviceId) return;
    const markers = await this.repos.identifications.openMarkers(input.env.id, deviceId);
    if (markers.length === 0) return;
    const user = await this.repos.users.findById(account);
    if (!user || user.environment_id !== input.env.id) return;
    const marker = markers.find((m) => m.from_user_id !== user.id);
    if (!marker) return;
    const at = now();
    if (!(await this.repos.identifications.closeMarker(marker.id, user.id, at))) return;
    await this.events.emit(input.env.id, "user.converted", {
      account: user.external_id,
      user: toEventUser({ ...user, converted_at: at, updated_at: at }),
      ...(marker.challenge_id ? { challenge: { id: marker.challenge_id } } : {}),
    });
  };
}
