import { Repository } from "./transactions.js";

export const HOUR_MS = 3600 * 1000;
export const DAY_MS = 24 * HOUR_MS;
/** The settings key of the first hour not rolled up yet (every earlier hour is). */
const WATERMARK_KEY = "evaluation_rollups_until";
/** Roll-up rows written per INSERT (6 parameters each, well under PostgreSQL's 65,535). */
const INSERT_CHUNK = 1000;

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
): CountRow[] {
  const counts = new Map<string, CountRow>();
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

export class EvaluationStatsRepo extends Repository {
  /** The first hour not rolled up yet; undefined before the first roll-up. */
  async watermark(): Promise<number | undefined> {
    const row = await this.db.selectFrom("settings").select("value").where("key", "=", WATERMARK_KEY).executeTakeFirst();
    return row ? Number(row.value) : undefined;
  }

  async oldestEvaluationAt(): Promise<number | undefined> {
    const row = await this.db.selectFrom("evaluations").select("created_at").orderBy("created_at").limit(1).executeTakeFirst();
    return row ? Number(row.created_at) : undefined;
  }

  /**
   * Rolls up the hour starting at `bucket` (all environments) and moves the watermark from `expected` to the next hour,
   * in one transaction. The watermark moves only from the value this caller read: when several instances run the job,
   * one rolls the hour up and the others find the watermark moved and write nothing. Answers whether this call did it.
   */
  async rollUpHour(bucket: number, expected: number | undefined): Promise<boolean> {
    const next = String(bucket + HOUR_MS);
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
      const evaluations = await this.db
        .selectFrom("evaluations")
        .select(["environment_id", "created_at", "action", "verdict", "reasons"])
        .where("created_at", ">=", bucket)
        .where("created_at", "<", bucket + HOUR_MS)
        .execute();
      const byEnv = new Map<string, typeof evaluations>();
      for (const e of evaluations) {
        const list = byEnv.get(e.environment_id);
        if (list) list.push(e);
        else byEnv.set(e.environment_id, [e]);
      }
      await this.db.deleteFrom("evaluation_rollups").where("bucket", "=", bucket).execute();
      const rows = [...byEnv].flatMap(([environment_id, list]) => countEvaluations(list).map((c) => ({ environment_id, ...c })));
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
