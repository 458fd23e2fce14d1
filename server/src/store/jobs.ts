// Repository of the job outbox (jobs/outbox.ts): a job is inserted in the transaction of the change that asks for it,
// claimed under a lease by a worker (one claimer wins on PostgreSQL: SKIP LOCKED), deleted when done, put back with a
// later `run_at` when it failed.
import type { Selectable } from "kysely";
import { newId } from "../ids.js";
import type { Dialect } from "./db.js";
import type { JobsTable } from "./tables/jobs.js";
import { Repository, type Transactions } from "./transactions.js";

export type JobRow = Selectable<JobsTable>;

export class JobsRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
  ) {
    super(transactions);
  }

  async insert(kind: string, payload: Record<string, unknown>, at: number): Promise<string> {
    const id = newId("job");
    await this.db
      .insertInto("jobs")
      .values({
        id,
        kind,
        payload: JSON.stringify(payload),
        attempts: 0,
        run_at: at,
        lease_owner: null,
        lease_until: null,
        last_error: null,
        created_at: at,
      })
      .execute();
    return id;
  }

  /** Claims up to `limit` due jobs not leased by a live worker, for `owner` until `leaseUntil`; counts the attempt. */
  async claimDue(owner: string, at: number, leaseUntil: number, limit: number): Promise<JobRow[]> {
    return this.db
      .updateTable("jobs")
      .set((eb) => ({ lease_owner: owner, lease_until: leaseUntil, attempts: eb("attempts", "+", 1) }))
      .where("id", "in", () => {
        const q = this.db
          .selectFrom("jobs")
          .select("id")
          .where("run_at", "<=", at)
          .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]))
          .orderBy("run_at")
          .limit(limit);
        return this.dialect === "postgres" ? q.forUpdate().skipLocked() : q;
      })
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]))
      .returningAll()
      .execute();
  }

  /** The job is done: gone. */
  async done(id: string, owner: string): Promise<void> {
    await this.db.deleteFrom("jobs").where("id", "=", id).where("lease_owner", "=", owner).execute();
  }

  /** The attempt failed: due again at `runAt`, with the error kept for operators. */
  async retryAt(id: string, owner: string, runAt: number, error: string): Promise<void> {
    await this.db
      .updateTable("jobs")
      .set({ run_at: runAt, lease_owner: null, lease_until: null, last_error: error })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .execute();
  }

  /** Releases every lease not held by `owner`: on the embedded store the process holding them is gone. */
  async releaseLeases(owner: string): Promise<number> {
    const res = await this.db
      .updateTable("jobs")
      .set({ lease_owner: null, lease_until: null })
      .where("lease_owner", "is not", null)
      .where("lease_owner", "!=", owner)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  async pending(kind?: string): Promise<JobRow[]> {
    let q = this.db.selectFrom("jobs").selectAll().orderBy("created_at");
    if (kind) q = q.where("kind", "=", kind);
    return q.execute();
  }
}
