import type { Kysely } from "kysely";
import type { Database } from "./schema.js";
import { nextTurn, Repository } from "./transactions.js";

export const HOUR_MS = 3600 * 1000;
export const DAY_MS = 24 * HOUR_MS;
/** The settings key of the first hour not rolled up yet (every earlier hour is). */
const WATERMARK_KEY = "evaluation_rollups_until";
/** Roll-up rows written per INSERT (6 parameters each, well under PostgreSQL's 65,535). */
const INSERT_CHUNK = 1000;
/**
 * Evaluations of the hour read per statement, with a turn of the event loop between two: read in one statement, an
 * hour at 450 evaluations/s (1.6 million rows) held the embedded store's event loop for seconds once an hour. A page
 * is a few milliseconds.
 */
export const ROLLUP_PAGE = 1000;

export interface CountRow {
  bucket: number;
  action: string;
  kind: "verdict" | "reason";
  key: string;
  count: number;
}

/** Counts of a set of evaluation rows by hour, action, and verdict or reason. */
export function countEvaluations(
  rows: Iterable<{ created_at: number; action: string; verdict: string; reasons: string }>,
  bucketOf: (t: number) => number = (t) => Math.floor(t / HOUR_MS) * HOUR_MS,
  counts = new Map<string, CountRow>(),
): CountRow[] {
  const add = (bucket: number, action: string, kind: "verdict" | "reason", key: string) => {
    const k = `${bucket}\u0000${action}\u0000${kind}\u0000${key}`;
    const c = counts.get(k);
    if (c) c.count++;
    else counts.set(k, { bucket, action, kind, key, count: 1 });
  };
  for (const r of rows) {
    const bucket = bucketOf(Number(r.created_at));
    add(bucket, r.action, "verdict", r.verdict);
    for (const reason of JSON.parse(r.reasons) as string[]) add(bucket, r.action, "reason", reason);
  }
  return [...counts.values()];
}

/**
 * The environments that hold evaluations, in id order, each found by one seek of an index led by the environment (no
 * index leads with the time alone: migration 35). An environment deleted with its evaluations left behind is one too,
 * so what reads every environment's evaluations through this misses none.
 */
export async function* evaluationEnvironments(db: Kysely<Database>): AsyncGenerator<string> {
  let after: string | undefined;
  for (;;) {
    let q = db.selectFrom("evaluations").select("environment_id").orderBy("environment_id").limit(1);
    if (after !== undefined) q = q.where("environment_id", ">", after);
    const row = await q.executeTakeFirst();
    if (!row) return;
    after = row.environment_id;
    yield after;
  }
}

export class EvaluationStatsRepo extends Repository {
  /** The first hour not rolled up yet; undefined before the first roll-up. */
  async watermark(): Promise<number | undefined> {
    const row = await this.db.selectFrom("settings").select("value").where("key", "=", WATERMARK_KEY).executeTakeFirst();
    return row ? Number(row.value) : undefined;
  }

  /** The oldest evaluation's time, over every environment (the oldest of each, read from its first index entry). */
  async oldestEvaluationAt(): Promise<number | undefined> {
    let oldest: number | undefined;
    for await (const env of evaluationEnvironments(this.db)) {
      const row = await this.db
        .selectFrom("evaluations")
        .select("created_at")
        .where("environment_id", "=", env)
        .orderBy("created_at")
        .limit(1)
        .executeTakeFirst();
      if (row && (oldest === undefined || Number(row.created_at) < oldest)) oldest = Number(row.created_at);
    }
    return oldest;
  }

  /**
   * Rolls up the hour starting at `bucket` (all environments; its evaluations counted first, `page` at a time) and moves
   * the watermark from `expected` to the next hour, writing the counts in one transaction. The watermark moves only
   * from the value this caller read: when several instances run the job, one rolls the hour up and the others find the
   * watermark moved and write nothing. Answers whether this call did it.
   */
  async rollUpHour(bucket: number, expected: number | undefined, page = ROLLUP_PAGE): Promise<boolean> {
    const next = String(bucket + HOUR_MS);
    // Counted before the transaction, which would hold the connection (and the embedded store's batch) across pages; a
    // closed hour's evaluations no longer change, and the watermark's compare-and-set below still decides who writes.
    const rows = await this.countHour(bucket, page);
    return this.transactions.run(async () => {
      if (expected === undefined) {
        const r = await this.db
          .insertInto("settings")
          .values({ key: WATERMARK_KEY, value: next })
          .onConflict((oc) => oc.column("key").doNothing())
          .executeTakeFirst();
        if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      } else {
        const r = await this.db
          .updateTable("settings")
          .set({ value: next })
          .where("key", "=", WATERMARK_KEY)
          .where("value", "=", String(expected))
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
      }
      await this.db.deleteFrom("evaluation_rollups").where("bucket", "=", bucket).execute();
      for (let i = 0; i < rows.length; i += INSERT_CHUNK)
        await this.db
          .insertInto("evaluation_rollups")
          .values(rows.slice(i, i + INSERT_CHUNK))
          .execute();
      // The hour's day, summed again from its hours so far (a few hundred rows).
      const day = Math.floor(bucket / DAY_MS) * DAY_MS;
      await this.db.deleteFrom("evaluation_rollups_daily").where("bucket", "=", day).execute();
      await this.db
        .insertInto("evaluation_rollups_daily")
        .columns(["environment_id", "bucket", "action", "kind", "key", "count"])
        .expression((eb) =>
          eb
            .selectFrom("evaluation_rollups")
            .select(["environment_id", eb.val(day).as("bucket"), "action", "kind", "key", eb.fn.sum<number>("count").as("count")])
            .where("bucket", ">=", day)
            .where("bucket", "<", day + DAY_MS)
            .groupBy(["environment_id", "action", "kind", "key"]),
        )
        .execute();
      return true;
    });
  }

  /**
   * The hour's counts by environment, each environment's evaluations read `page` at a time in time order (index
   * evaluations_env_time_id).
   */
  private async countHour(bucket: number, page: number): Promise<Array<CountRow & { environment_id: string }>> {
    const out: Array<CountRow & { environment_id: string }> = [];
    for await (const env of evaluationEnvironments(this.db)) {
      const counts = new Map<string, CountRow>();
      const add = (rows: Array<{ created_at: number; action: string; verdict: string; reasons: string }>) => {
        countEvaluations(rows, undefined, counts);
      };
      const read = (from: number, to: number, limit?: number) => {
        let q = this.db
          .selectFrom("evaluations")
          .select(["created_at", "action", "verdict", "reasons"])
          .where("environment_id", "=", env)
          .where("created_at", ">=", from)
          .where("created_at", "<", to)
          .orderBy("created_at");
        if (limit !== undefined) q = q.limit(limit);
        return q.execute();
      };
      const end = bucket + HOUR_MS;
      for (let from = bucket; from < end; ) {
        const got = await read(from, end, page);
        if (got.length < page) {
          add(got);
          break;
        }
        // The page may end inside a millisecond: its last millisecond is read again from its start by the next page.
        const last = Number(got[got.length - 1]!.created_at);
        const before = got.filter((r) => Number(r.created_at) < last);
        if (before.length > 0) {
          add(before);
          from = last;
        } else {
          // A whole page in one millisecond: read that millisecond whole.
          add(await read(last, last + 1));
          from = last + 1;
        }
        await nextTurn();
      }
      for (const c of counts.values()) out.push({ environment_id: env, ...c });
    }
    return out;
  }

  /** Sets the watermark when nothing is stored yet, so that the job does not walk empty history. */
  async startWatermark(at: number): Promise<void> {
    await this.db
      .insertInto("settings")
      .values({ key: WATERMARK_KEY, value: String(at) })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
  }

  /**
   * The roll-ups of a period summed by the database into the three shapes the overview shows (verdicts per hour,
   * verdicts per action, reasons): a month of hours is tens of thousands of roll-up rows, a few hundred once summed.
   */
  async summed(
    environmentId: string,
    from: number,
    to: number,
    table: "evaluation_rollups" | "evaluation_rollups_daily",
  ): Promise<CountRow[]> {
    if (from >= to) return [];
    const range = this.db
      .selectFrom(table)
      .where("environment_id", "=", environmentId)
      .where("bucket", ">=", from)
      .where("bucket", "<", to);
    const [byHour, byAction, reasons] = await Promise.all([
      range
        .select(["bucket", "key", (eb) => eb.fn.sum<number>("count").as("n")])
        .where("kind", "=", "verdict")
        .groupBy(["bucket", "key"])
        .execute(),
      range
        .select(["action", "key", (eb) => eb.fn.sum<number>("count").as("n")])
        .where("kind", "=", "verdict")
        .groupBy(["action", "key"])
        .execute(),
      range
        .select(["key", (eb) => eb.fn.sum<number>("count").as("n")])
        .where("kind", "=", "reason")
        .groupBy("key")
        .execute(),
    ]);
    // Each sum once in the shape that reads it: an empty action means "verdicts by hour only", bucket -1 "by action only".
    return [
      ...byHour.map((r) => ({ bucket: Number(r.bucket), action: "", kind: "verdict" as const, key: r.key, count: Number(r.n) })),
      ...byAction.map((r) => ({ bucket: -1, action: r.action, kind: "verdict" as const, key: r.key, count: Number(r.n) })),
      ...reasons.map((r) => ({ bucket: -1, action: "", kind: "reason" as const, key: r.key, count: Number(r.n) })),
    ];
  }

  /** The evaluations of a period not rolled up yet (the last hour or so), as counted by countEvaluations. */
  async live(environmentId: string, from: number, to: number) {
    return this.db
      .selectFrom("evaluations")
      .select(["created_at", "action", "verdict", "reasons"])
      .where("environment_id", "=", environmentId)
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .execute();
  }

  /** Challenges created in the period by status and type (far fewer than evaluations: counted live). */
  async challenges(environmentId: string, from: number, to: number) {
    const rows = await this.db
      .selectFrom("challenges")
      .select(["status", "type", (eb) => eb.fn.countAll<number>().as("n")])
      .where("environment_id", "=", environmentId)
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .groupBy(["status", "type"])
      .execute();
    return rows.map((r) => ({ status: r.status, type: r.type, count: Number(r.n) }));
  }

  async pruneBefore(bucket: number): Promise<number> {
    const r = await this.db.deleteFrom("evaluation_rollups").where("bucket", "<", bucket).executeTakeFirst();
    await this.db
      .deleteFrom("evaluation_rollups_daily")
      .where("bucket", "<", Math.floor(bucket / DAY_MS) * DAY_MS)
      .execute();
    return Number(r.numDeletedRows);
  }
}
