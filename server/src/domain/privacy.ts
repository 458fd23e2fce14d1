// Privacy (SPEC.md 5): erasing a user's data on request, and the retention job that prunes old records.
// Other areas register erasers for the data they own (e.g. challenges); all run in one transaction.
import type { UserErasure } from "@tessera/sdk/contract";
import { userNotFound } from "../errors.js";
import type { Repos } from "../store/repos.js";

/** A user first seen on a login and never confirmed by the backend is forgotten after a day. */
export const PROVISIONAL_TTL_MS = 24 * 3600 * 1000;

export interface EraseContext {
  environmentId: string;
  /** users.id (the service id). */
  userId: string;
  externalId: string;
  /** The user's devices, collected before anything is deleted. */
  deviceIds: string[];
}

/** Deletes one area's data of a user in the erasure's transaction; answers counts to add to the answer. */
export type Eraser = (ctx: EraseContext) => Promise<Partial<UserErasure["deleted"]>>;

export class PrivacyService {
  constructor(
    private readonly repos: Repos,
    /** Other areas' erasers (services.ts), run first, before the core data goes; each adds to the counts. */
    readonly erasers: Eraser[],
  ) {}

  async eraseUser(environmentId: string, externalId: string): Promise<UserErasure> {
    const user = await this.repos.users.findByExternal(environmentId, externalId);
    if (!user) throw userNotFound(externalId);
    return this.repos.transaction(async () => {
      const deleted: UserErasure["deleted"] = { evaluations: 0, devices: 0, fingerprints: 0, challenges: 0, access_records: 0 };
      const ctx: EraseContext = {
        environmentId,
        userId: user.id,
        externalId,
        deviceIds: await this.repos.userData.deviceIds(environmentId, user.id),
      };
      for (const eraser of this.erasers) {
        for (const [k, v] of Object.entries(await eraser(ctx))) deleted[k as keyof typeof deleted] += v ?? 0;
      }
      const core = await this.repos.userData.erase(environmentId, user.id);
      for (const [k, v] of Object.entries(core)) deleted[k as keyof typeof deleted] += v;
      return { user: externalId, deleted };
    });
  }

  /**
   * Retention: evaluations, access records and settled webhook deliveries older than `days` are deleted; provisional
   * users never confirmed within a day go with their login attempts (SPEC.md 13).
   */
  async prune(
    days: number,
    at = Date.now(),
  ): Promise<{ evaluations: number; access_records: number; webhooks: number; provisional_users: number }> {
    const before = at - days * 86_400_000;
    const core = await this.repos.userData.pruneBefore(before);
    const webhooks = await this.repos.webhooks.pruneBefore(before);
    const provisional_users = await this.repos.users.pruneProvisional(at - PROVISIONAL_TTL_MS);
    return { ...core, webhooks, provisional_users };
  }
}
