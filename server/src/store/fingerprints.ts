// Repository of fingerprints: the server's record of each browser fingerprint seen in an environment.
import { type Selectable, sql } from "kysely";
import { insertRow, prepared, updateRow } from "./prepared.js";
import type { FingerprintsTable } from "./tables/core.js";
import { Repository } from "./transactions.js";

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
/**
 * The users of the evaluations of one fingerprint since a time, each with whether it is provisional (first seen on a
 * login the backend never confirmed) and whether it logged in from the fingerprint since `loginSince`.
 */
const usersOf = prepared((db, p: { env: string; fp: string; since: number; loginSince: number; cap: number }) =>
  db
    .selectFrom("evaluations")
    .innerJoin("users", "users.id", "evaluations.user_id")
    .select((eb) => [
      "evaluations.user_id",
      eb.fn.max("users.provisional").as("provisional"),
      sql<number>`max(case when ${eb.ref("evaluations.action")} = 'login' and ${eb.ref("evaluations.created_at")} >= ${p.loginSince} then 1 else 0 end)`.as(
        "tried",
      ),
    ])
    .where("evaluations.environment_id", "=", p.env)
    .where("evaluations.fingerprint_id", "=", p.fp)
    .where("evaluations.created_at", ">=", p.since)
    .groupBy("evaluations.user_id")
    .limit(p.cap),
);
/**
 * The same from one IP, over the fingerprints with one exact hash: components that do not identify a browser (every
 * phone of a model shares them) get a record per device, yet still name one browser on one home's or office's address,
 * as a device does whose storage was cleared. Served by the IP index.
 */
const confirmedUsersAtIp = prepared((db, p: { env: string; hash: string; ip: string; since: number; cap: number }) =>
  db
    .selectFrom("evaluations")
    .innerJoin("fingerprints", "fingerprints.id", "evaluations.fingerprint_id")
    .innerJoin("users", "users.id", "evaluations.user_id")
    .select("evaluations.user_id")
    .distinct()
    .where("evaluations.environment_id", "=", p.env)
    .where("evaluations.ip", "=", p.ip)
    .where("evaluations.created_at", ">=", p.since)
    .where("fingerprints.exact_hash", "=", p.hash)
    .where("users.provisional", "=", 0)
    .limit(p.cap),
);
const touchAt = prepared((db, p: { id: string; at: number }) =>
  db.updateTable("fingerprints").set({ last_seen_at: p.at }).where("id", "=", p.id),
);

/**
 * last_seen_at only orders drift candidates (most recently seen first), so a sighting within this long of the last
 * recorded one is not written: a returning browser costs no fingerprint write on most requests.
 */
export const TOUCH_EVERY_MS = 10 * 60 * 1000;

export class FingerprintsRepo extends Repository {
  async findById(environmentId: string, id: string): Promise<FingerprintRow | undefined> {
    return byId.first(this.db, { env: environmentId, id });
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
    await insertRow(this.db, "fingerprints", row);
  }

  /** Marks the fingerprint popular (sticky): many visitor tokens on many networks present it. */
  async setPopular(id: string): Promise<void> {
    await popularNow.execute(this.db, { id });
  }

  /**
   * Distinct users evaluated with this fingerprint since `since` (at most `cap`), provisional users left out: they are
   * not accounts yet (SPEC.md 13).
   */
  /**
   * The accounts of one fingerprint: the confirmed users of its evaluations since `since` (not provisional), and every
   * user, provisional included, that logged in from it since `loginSince` (accounts tried).
   */
  async users(
    environmentId: string,
    fingerprintId: string,
    since: number,
    loginSince: number,
    cap = 200,
  ): Promise<{ confirmed: string[]; triedSince: string[] }> {
    const rows = await usersOf.rows(this.db, { env: environmentId, fp: fingerprintId, since, loginSince, cap });
    const confirmed: string[] = [];
    const triedSince: string[] = [];
    for (const r of rows) {
      const id = r.user_id as string;
      if (Number(r.provisional) === 0) confirmed.push(id);
      if (Number(r.tried) > 0) triedSince.push(id);
    }
    return { confirmed, triedSince };
  }

  /** Distinct confirmed users of the evaluations from one IP, since `since`, of fingerprints with this exact hash. */
  async confirmedUsersAtIp(environmentId: string, exactHash: string, ip: string, since: number, cap = 200): Promise<string[]> {
    const rows = await confirmedUsersAtIp.rows(this.db, { env: environmentId, hash: exactHash, ip, since, cap });
    return rows.map((r) => r.user_id as string);
  }

  /** Records a sighting of a known fingerprint (`row` as read), unless one was recorded within TOUCH_EVERY_MS. */
  async touch(row: Pick<FingerprintRow, "id" | "last_seen_at">, at: number): Promise<void> {
    if (at - Number(row.last_seen_at) < TOUCH_EVERY_MS) return;
    await touchAt.execute(this.db, { id: row.id, at });
  }

  /**
   * On a drift match of a browser's own fingerprint (one no other live token presents): the record follows the
   * browser's latest components, so the next visit is exact.
   */
  async updateComponents(
    id: string,
    next: { exact_hash: string; coarse_key: string; components: string; last_seen_at?: number },
  ): Promise<void> {
    await updateRow(this.db, "fingerprints", id, next);
  }
}
