// Repository of fingerprints: the server's record of each browser fingerprint seen in an environment.
import type { Selectable } from "kysely";
import { prepared, queueInsert, queueUpdate } from "./prepared.js";
import type { FingerprintsTable } from "./tables/core.js";
import { Repository, type Transactions } from "./transactions.js";
import type { FingerprintUsers, UserLists } from "./user-lists.js";

export type FingerprintRow = Selectable<FingerprintsTable>;

const byId = prepared((db, p: { env: string; id: string }) =>
  db.selectFrom("fingerprints").selectAll().where("environment_id", "=", p.env).where("id", "=", p.id),
);
const byExactHash = prepared((db, p: { env: string; hash: string; limit: number }) =>
  db.selectFrom("fingerprints").selectAll().where("environment_id", "=", p.env).where("exact_hash", "=", p.hash).limit(p.limit),
);
const componentsById = prepared((db, p: { env: string; id: string }) =>
  db.selectFrom("fingerprints").select(["id", "exact_hash", "components"]).where("environment_id", "=", p.env).where("id", "=", p.id),
);
const popularNow = prepared((db, p: { id: string }) => db.updateTable("fingerprints").set({ popular: 1 }).where("id", "=", p.id));
const touchAt = prepared((db, p: { id: string; at: number }) =>
  db.updateTable("fingerprints").set({ last_seen_at: p.at }).where("id", "=", p.id),
);

/**
 * last_seen_at only orders drift candidates (most recently seen first), so a sighting within this long of the last
 * recorded one is not written: a returning browser costs no fingerprint write on most requests.
 */
export const TOUCH_EVERY_MS = 10 * 60 * 1000;

export class FingerprintsRepo extends Repository {
  constructor(
    transactions: Transactions,
    /** Shared with HistoryRepo: the reads of one evaluation go out together on PostgreSQL (store/user-lists.ts). */
    private readonly lists: UserLists,
  ) {
    super(transactions);
  }

  async findById(environmentId: string, id: string): Promise<FingerprintRow | undefined> {
    return byId.first(this.db, { env: environmentId, id });
  }

  /** The rows of these fingerprints, in one read (the candidates of a re-identification: pipeline/identity.ts). */
  async findByIds(environmentId: string, ids: readonly string[]): Promise<FingerprintRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom("fingerprints").selectAll().where("environment_id", "=", environmentId).where("id", "in", ids).execute();
  }

  /** The fingerprints with this exact hash (a drift can bring a browser's own record onto another's components). */
  async findExact(environmentId: string, exactHash: string): Promise<FingerprintRow[]> {
    return byExactHash.rows(this.db, { env: environmentId, hash: exactHash, limit: 8 });
  }

  async componentsOf(environmentId: string, ids: string[]): Promise<Array<{ id: string; exact_hash: string; components: string }>> {
    if (ids.length === 0) return [];
    // One candidate is the usual case (a browser's own fingerprint after a small drift).
    if (ids.length === 1) return componentsById.rows(this.db, { env: environmentId, id: ids[0]! });
    return this.db
      .selectFrom("fingerprints")
      .select(["id", "exact_hash", "components"])
      .where("environment_id", "=", environmentId)
      .where("id", "in", ids)
      .execute();
  }

  async insert(row: FingerprintRow): Promise<void> {
    await queueInsert(this.db, "fingerprints", row);
  }

  /** Marks the fingerprint popular (sticky): many visitor tokens on many networks present it. */
  async setPopular(id: string): Promise<void> {
    await popularNow.execute(this.db, { id });
  }

  /**
   * The accounts of one fingerprint: the confirmed users of its evaluations since `since` (not provisional), and every
   * user, provisional included, that logged in from it since `loginSince` (accounts tried).
   */
  users(environmentId: string, fingerprintId: string, since: number, loginSince: number, cap = 200): Promise<FingerprintUsers> {
    return this.lists.fingerprintUsers(environmentId, fingerprintId, since, loginSince, cap);
  }

  /** Distinct confirmed users of the evaluations from one IP, since `since`, of fingerprints with this exact hash. */
  confirmedUsersAtIp(environmentId: string, exactHash: string, ip: string, since: number, cap = 200): Promise<string[]> {
    return this.lists.confirmedUsersAtIp(environmentId, exactHash, ip, since, cap);
  }

  /** Records a sighting of a known fingerprint (`row` as read), unless one was recorded within TOUCH_EVERY_MS. */
  async touch(row: Pick<FingerprintRow, "id" | "last_seen_at">, at: number): Promise<void> {
    if (at - Number(row.last_seen_at) < TOUCH_EVERY_MS) return;
    await touchAt.queue(this.db, { id: row.id, at });
  }

  /**
   * On a drift match of a browser's own fingerprint (one no other live token presents): the record follows the
   * browser's latest components, so the next visit is exact.
   */
  async updateComponents(
    id: string,
    next: { exact_hash: string; coarse_key: string; components: string; last_seen_at?: number },
  ): Promise<void> {
    await queueUpdate(this.db, "fingerprints", id, next);
  }
}
