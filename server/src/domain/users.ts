// Users (SPEC.md 5, 7): partial updates from the customer's backend, and conversions — a sharer who chose
// "create my own account" on a device and later signs up from it as a new user (`user.converted`).
import type { UserUpdateRequest } from "@tessera/sdk/contract";
import { accountEmailKey } from "../pipeline/account-email.js";
import type { EvaluationStep, EventSink } from "../pipeline/ports.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { iso, now } from "../time.js";

/** The user object of `user.*` webhook payloads. */
export function toEventUser(u: UserRow): Record<string, unknown> {
  return {
    service_id: u.id,
    id: u.external_id,
    ...(u.email ? { email: u.email } : {}),
    ...(u.phone ? { phone: u.phone } : {}),
    metadata: JSON.parse(u.metadata) as Record<string, unknown>,
    groups: JSON.parse(u.groups) as string[],
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
  async update(environmentId: string, externalId: string, req: UserUpdateRequest): Promise<void> {
    let user = await this.repos.users.findByExternal(environmentId, externalId);
    if (!user) {
      const { email, phone, metadata } = req;
      user = (
        await this.repos.users.upsert(environmentId, externalId, {
          source: "server",
          ...(email ? { email } : {}),
          ...(phone ? { phone } : {}),
          ...(metadata ? { metadata } : {}),
        })
      ).user;
    }
    const patch: Partial<UserRow> = {};
    if (req.email !== undefined && req.email !== user.email)
      Object.assign(patch, { email: req.email, email_verified: 0, email_key: req.email === null ? null : accountEmailKey(req.email) });
    if (req.phone !== undefined && req.phone !== user.phone) Object.assign(patch, { phone: req.phone, phone_verified: 0 });
    if (req.metadata !== undefined) patch.metadata = JSON.stringify(req.metadata);
    if (req.groups !== undefined) patch.groups = JSON.stringify([...new Set(req.groups)]);
    // The backend updating a user with its secret vouches for the account (SPEC.md 13).
    if (user.provisional === 1) patch.provisional = 0;
    if (Object.keys(patch).length === 0) return;
    patch.updated_at = now();
    await this.repos.userData.update(user.id, patch);
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

  /** Pipeline step, in the evaluation's transaction: a signup by a new account from a marked device is a conversion (emitted once). */
  readonly onEvaluation: EvaluationStep = async (result, input, identity) => {
    if (input.action !== "signup" || !input.user) return;
    const deviceId = result.evaluation.device ?? identity.device?.row.id;
    if (!deviceId) return;
    const markers = await this.repos.identifications.openMarkers(input.env.id, deviceId);
    if (markers.length === 0) return;
    const user = await this.repos.users.findByExternal(input.env.id, input.user);
    if (!user) return;
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
