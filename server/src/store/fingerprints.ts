// Repository of fingerprints: the server's record of each browser fingerprint seen in an environment.
import { type Selectable, sql } from "kysely";
import type { Dialect } from "./db.js";
import { joinable, joinRead } from "./joined-reads.js";
import { prepared, queueInsert, queueUpdate } from "./prepared.js";
import type { FingerprintsTable } from "./tables/core.js";
import { Repository, type Transactions } from "./transactions.js";
import type { FingerprintUsers, UserLists } from "./user-lists.js";

export type FingerprintRow = Selectable<FingerprintsTable>;

/**
 * What an evaluation reads of a known fingerprint: neither its stored components (~600 bytes in the bench, more from
 * real browsers) nor its coarse key, which only a drift or a new fingerprint needs
 * (docs/decisions/evaluation-columns.md). A new fingerprint's row, inserted whole, is a FingerprintRow.
 */
export const FINGERPRINT_HEAD = ["id", "exact_hash", "popular", "last_seen_at"] as const;
export type FingerprintHead = Pick<FingerprintRow, (typeof FINGERPRINT_HEAD)[number]>;

const byId = prepared((db, p: { env: string; id: string }) =>
  db.selectFrom("fingerprints").selectAll().where("environment_id", "=", p.env).where("id", "=", p.id),
);
const byExactHash = prepared((db, p: { env: string; hash: string; limit: number }) =>
  db
    .selectFrom("fingerprints")
    .select(FINGERPRINT_HEAD)
    .where("environment_id", "=", p.env)
    .where("exact_hash", "=", p.hash)
    .limit(p.limit),
);
/** The head, and the components only when they are not the ones of `hash` (a drift, to compare them): one statement. */
const ownById = prepared((db, p: { env: string; id: string; hash: string }) =>
  db
    .selectFrom("fingerprints")
    .select(FINGERPRINT_HEAD)
    .select(sql<string | null>`case when exact_hash = ${p.hash} then null else components end`.as("components"))
    .where("environment_id", "=", p.env)
    .where("id", "=", p.id),
);
/**
 * PostgreSQL: the heads of the fingerprints of the devices of a visitor token (carrying it, carried before, recognised
 * on it), with components as ownById answers them, read with the identity step's first reads (store/joined-reads.ts):
 * the token's device's own fingerprint, which findOwn would read once the device is chosen, is most often among them.
 */
const ownOfToken = joinable(2, (db, p: { env: string; token: string; hash: string; limit: number }) =>
  db
    .selectFrom("fingerprints")
    .select(FINGERPRINT_HEAD)
    .select(sql<string | null>`case when exact_hash = ${p.hash} then null else components end`.as("components"))
    .where("environment_id", "=", p.env)
    .where("id", "in", (eb) =>
      eb
        .selectFrom("devices")
        .select("fingerprint_id")
        .where("environment_id", "=", p.env)
        .where("visitor_token", "=", p.token)
        .unionAll(
          eb.selectFrom("devices").select("fingerprint_id").where("environment_id", "=", p.env).where("previous_token", "=", p.token),
        )
        .unionAll(
          eb.selectFrom("devices").select("fingerprint_id").where("environment_id", "=", p.env).where("recognised_token", "=", p.token),
        ),
    )
    .limit(p.limit),
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
    private readonly dialect: Dialect = "sqlite",
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

  /**
   * A browser's own fingerprint as its request presents `exactHash`: its head, with its components (to compare them)
   * only when its hash is another (a drift), else null: a browser presenting its own fingerprint, most requests,
   * copies no components out of the store.
   */
  async findOwn(
    environmentId: string,
    id: string,
    exactHash: string,
    /** ownOfTokenRead's answer for the request's token and `exactHash`: read again only when it does not hold `id`. */
    read?: Promise<Array<FingerprintHead & { components: string | null }>>,
  ): Promise<(FingerprintHead & { components: string | null }) | undefined> {
    const found = read && (await read).find((r) => r.id === id);
    return found ?? ownById.first(this.db, { env: environmentId, id, hash: exactHash });
  }

  /**
   * PostgreSQL: the fingerprints of the devices of this token (ownOfToken), started now to go with the identity step's
   * first reads, for findOwn. The embedded store: undefined (findOwn reads the one it needs, as before).
   */
  ownOfTokenRead(
    environmentId: string,
    token: string,
    exactHash: string,
  ): Promise<Array<FingerprintHead & { components: string | null }>> | undefined {
    if (this.dialect === "sqlite") return undefined;
    const read = joinRead(this.db, this.dialect, ownOfToken, { env: environmentId, token, hash: exactHash, limit: 8 });
    // Read by findOwn, or not at all when an earlier read failed: never an unhandled rejection.
    read.catch(() => {});
    return read;
  }

  /** The fingerprints with this exact hash (a drift can bring a browser's own record onto another's components). */
  async findExact(environmentId: string, exactHash: string): Promise<FingerprintHead[]> {
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
  async touch(row: Pick<FingerprintHead, "id" | "last_seen_at">, at: number): Promise<void> {
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
