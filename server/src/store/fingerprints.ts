// Repository of fingerprints: the server's record of each browser fingerprint seen in an environment.
import type { Kysely, Selectable } from "kysely";
import type { Database } from "./schema.js";
import type { FingerprintsTable } from "./tables/core.js";

export type FingerprintRow = Selectable<FingerprintsTable>;

export class FingerprintsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async findById(environmentId: string, id: string): Promise<FingerprintRow | undefined> {
    return this.db
      .selectFrom("fingerprints")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  async findExact(environmentId: string, exactHash: string): Promise<FingerprintRow | undefined> {
    return this.db
      .selectFrom("fingerprints")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("exact_hash", "=", exactHash)
      .executeTakeFirst();
  }

  /** Match candidates without their (large) components: the index answers these, the components come from a cache. */
  async candidateKeys(environmentId: string, coarseKey: string, limit: number): Promise<Array<{ id: string; exact_hash: string }>> {
    return this.db
      .selectFrom("fingerprints")
      .select(["id", "exact_hash"])
      .where("environment_id", "=", environmentId)
      .where("coarse_key", "=", coarseKey)
      .orderBy("last_seen_at", "desc")
      .limit(limit)
      .execute();
  }

  async componentsOf(environmentId: string, ids: string[]): Promise<Array<{ id: string; exact_hash: string; components: string }>> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom("fingerprints")
      .select(["id", "exact_hash", "components"])
      .where("environment_id", "=", environmentId)
      .where("id", "in", ids)
      .execute();
  }

  async insert(row: FingerprintRow, db: Kysely<Database> = this.db): Promise<void> {
    await db.insertInto("fingerprints").values(row).execute();
  }

  async touch(id: string, at: number, db: Kysely<Database> = this.db): Promise<void> {
    await db.updateTable("fingerprints").set({ last_seen_at: at }).where("id", "=", id).execute();
  }

  /** After a drift match: the fingerprint follows the browser's latest components, so the next visit is exact. */
  async updateComponents(
    id: string,
    next: { exact_hash: string; coarse_key: string; components: string },
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    await db.updateTable("fingerprints").set(next).where("id", "=", id).execute();
  }
}
