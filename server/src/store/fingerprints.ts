// Repository of fingerprints: the server's record of each browser fingerprint seen in an environment.
import type { Kysely, Selectable } from "kysely";
import { insertRow, newestFirst, prepared, updateRow } from "./prepared.js";
import type { Database } from "./schema.js";
import type { FingerprintsTable } from "./tables/core.js";

export type FingerprintRow = Selectable<FingerprintsTable>;

const byId = prepared((db, p: { env: string; id: string }) =>
  db.selectFrom("fingerprints").selectAll().where("environment_id", "=", p.env).where("id", "=", p.id),
);
const byExactHash = prepared((db, p: { env: string; hash: string }) =>
  db.selectFrom("fingerprints").selectAll().where("environment_id", "=", p.env).where("exact_hash", "=", p.hash),
);
const byCoarseKey = newestFirst("last_seen_at", (db, p: { env: string; coarse: string }) =>
  db
    .selectFrom("fingerprints")
    .select(["id", "exact_hash", "last_seen_at"])
    .where("environment_id", "=", p.env)
    .where("coarse_key", "=", p.coarse),
);
const componentsById = prepared((db, p: { env: string; id: string }) =>
  db.selectFrom("fingerprints").select(["id", "exact_hash", "components"]).where("environment_id", "=", p.env).where("id", "=", p.id),
);
const touchAt = prepared((db, p: { id: string; at: number }) =>
  db.updateTable("fingerprints").set({ last_seen_at: p.at }).where("id", "=", p.id),
);

/**
 * last_seen_at only orders drift candidates (most recently seen first), so a sighting within this long of the last
 * recorded one is not written: a returning browser costs no fingerprint write on most requests.
 */
export const TOUCH_EVERY_MS = 10 * 60 * 1000;

export class FingerprintsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async findById(environmentId: string, id: string): Promise<FingerprintRow | undefined> {
    return byId.first(this.db, { env: environmentId, id });
  }

  async findExact(environmentId: string, exactHash: string): Promise<FingerprintRow | undefined> {
    return byExactHash.first(this.db, { env: environmentId, hash: exactHash });
  }

  /** Match candidates without their (large) components: the index answers these, the components come from a cache. */
  async candidateKeys(environmentId: string, coarseKey: string, limit: number): Promise<Array<{ id: string; exact_hash: string }>> {
    return byCoarseKey.rows(this.db, { env: environmentId, coarse: coarseKey }, limit);
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

  async insert(row: FingerprintRow, db: Kysely<Database> = this.db): Promise<void> {
    await insertRow(db, "fingerprints", row);
  }

  /** Records a sighting of a known fingerprint (`row` as read), unless one was recorded within TOUCH_EVERY_MS. */
  async touch(row: Pick<FingerprintRow, "id" | "last_seen_at">, at: number, db: Kysely<Database> = this.db): Promise<void> {
    if (at - Number(row.last_seen_at) < TOUCH_EVERY_MS) return;
    await touchAt.execute(db, { id: row.id, at });
  }

  /** On a drift match: the fingerprint follows the browser's latest components, so the next visit is exact. */
  async updateComponents(
    id: string,
    next: { exact_hash: string; coarse_key: string; components: string; last_seen_at?: number },
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    await updateRow(db, "fingerprints", id, next);
  }
}
