// Privacy (docs/storage.md): erasing a user's data on request, and the retention job that prunes old records.
// Other areas register erasers for the data they own (e.g. challenges); all run in one transaction.
import type { UserErasure } from "@tessera/sdk/contract";
import { userNotFound } from "../errors.js";
import { CONTENT_WINDOW } from "../facts/content.js";
import type { Repos } from "../store/repos.js";

/** A user first seen on a login and never confirmed by the backend is forgotten after a day. */
export const PROVISIONAL_TTL_MS = 24 * 3600 * 1000;
const DAY_MS = 86_400_000;
/** The audit log is kept at least this long, whatever RETENTION_DAYS: it answers for changes long after them. */
export const AUDIT_MIN_DAYS = 365;

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
   * Retention (the hourly job, jobs/index.ts): every kind of record that grows with traffic, each on its own rule. What
   * `days` (RETENTION_DAYS) bounds: evaluations, access records, identifications, settled webhook deliveries, ended
   * challenges, devices unseen that long (and what hangs on them), fingerprints unseen that long that no device holds,
   * users with no evaluation, no device and no update by the backend in that long, expired list entries. Shorter: users
   * first seen on a login and never confirmed (a day, identity.md), login attempts (a day: their counts look back a
   * day), content hashes (their check reads a day), the development outbox (a day: it holds codes in clear), expired
   * console sessions. Longer: the audit log, a year at least (it answers for changes long after them). The console's
   * roll-ups and the velocity and rate-limit counters are pruned by their own jobs. The order matters: devices go
   * before fingerprints and users, which are kept while a device holds them.
   */
  async prune(days: number, at = Date.now()): Promise<Record<string, number>> {
    const before = at - days * DAY_MS;
    const dayAgo = at - DAY_MS;
    const { retention } = this.repos;
    const core = await this.repos.userData.pruneBefore(before);
    return {
      ...core,
      webhooks: await this.repos.webhooks.pruneBefore(before),
      provisional_users: await this.repos.users.pruneProvisional(at - PROVISIONAL_TTL_MS),
      identifications: await retention.pruneIdentifications(before),
      challenges: await retention.pruneChallenges(before),
      dev_outbox: await retention.pruneDevOutbox(dayAgo),
      content_hashes: await retention.pruneContentHashes(at - CONTENT_WINDOW),
      devices: await retention.pruneDevices(before),
      fingerprints: await retention.pruneFingerprints(before),
      users: await retention.pruneStaleUsers(before),
      list_entries: await retention.pruneExpiredListEntries(before),
      audit_log: await retention.pruneAuditLog(at - Math.max(days, AUDIT_MIN_DAYS) * DAY_MS),
      sessions: await this.repos.operators.pruneSessions(at),
    };
  }
}
