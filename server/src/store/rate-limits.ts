// Repository of rate-limit counters: one atomic upsert per batch of keys. In PostgreSQL every instance sharing the
// database sees the same counts; in the embedded store the counters of long windows outlive a restart
// (rate-limit/limiter.ts).
import { type Kysely, sql } from "kysely";
import { type Prepared, prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { RateLimitTables } from "./tables/rate-limits.js";

export interface CounterHit {
  key: string;
  windowMs: number;
}

export interface CounterState {
  key: string;
  windowStart: number;
  count: number;
  prevCount: number;
}

/**
 * The counting upsert of `n` keys, compiled once per number of keys (store/prepared.ts): on every client request, so on
 * PostgreSQL it goes as a named statement (parsed and planned once per connection) and skips Kysely's build.
 */
const hits = new Map<number, Prepared<Record<string, unknown>, { key: string; window_start: number; count: number; prev_count: number }>>();

function hitsOf(n: number) {
  let q = hits.get(n);
  if (!q) {
    q = prepared((d, p: Record<string, unknown>) =>
      (d as unknown as Kysely<RateLimitTables>)
        .insertInto("rate_limits")
        .values(
          Array.from({ length: n }, (_, i) => ({
            key: p[`k${i}`] as string,
            window_start: p[`w${i}`] as number,
            count: 1,
            prev_count: 0,
            expires_at: p[`e${i}`] as number,
          })),
        )
        // The window length of a key is fixed by its caller, so (expires_at - window_start) / 2 is that length.
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            prev_count: sql<number>`case
            when rate_limits.window_start = excluded.window_start then rate_limits.prev_count
            when rate_limits.window_start = excluded.window_start - (excluded.expires_at - excluded.window_start) / 2 then rate_limits.count
            else 0 end`,
            count: sql<number>`case when rate_limits.window_start = excluded.window_start then rate_limits.count + 1 else 1 end`,
            window_start: sql<number>`excluded.window_start`,
            expires_at: sql<number>`excluded.expires_at`,
          }),
        )
        .returning(["key", "window_start", "count", "prev_count"]),
    );
    hits.set(n, q);
  }
  return q;
}

export class RateLimitsRepo {
  private readonly db: Kysely<RateLimitTables>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<RateLimitTables>() as unknown as Kysely<RateLimitTables>;
  }

  /**
   * Counts one hit on each key, in one statement: a new window moves the current count to prev_count (or drops it
   * when a whole window was skipped). Row locks make concurrent hits on one key serialise, so none is lost.
   */
  async hit(hits: CounterHit[], at: number): Promise<CounterState[]> {
    if (hits.length === 0) return [];
    const rows = hits.map((h) => {
      const windowStart = Math.floor(at / h.windowMs) * h.windowMs;
      return { key: h.key, window_start: windowStart, count: 1, prev_count: 0, expires_at: windowStart + 2 * h.windowMs };
    });
    const params: Record<string, unknown> = {};
    for (const [i, r] of rows.entries()) {
      params[`k${i}`] = r.key;
      params[`w${i}`] = r.window_start;
      params[`e${i}`] = r.expires_at;
    }
    const out = await hitsOf(rows.length).rows(this.db as unknown as Kysely<Database>, params);
    return out.map((r) => ({ key: r.key, windowStart: Number(r.window_start), count: Number(r.count), prevCount: Number(r.prev_count) }));
  }

  /** Takes one hit back from each key's current window (never below zero); a window that has ended is left alone. */
  async refund(hits: CounterHit[], at: number): Promise<void> {
    if (hits.length === 0) return;
    await this.db
      .updateTable("rate_limits")
      .set((eb) => ({ count: eb("count", "-", 1) }))
      .where((eb) =>
        eb.or(hits.map((h) => eb.and([eb("key", "=", h.key), eb("window_start", "=", Math.floor(at / h.windowMs) * h.windowMs)]))),
      )
      .where("count", ">", 0)
      .execute();
  }

  /** Drops counters whose windows are over; any instance may run it, it is idempotent. */
  async prune(at: number): Promise<number> {
    const res = await this.db.deleteFrom("rate_limits").where("expires_at", "<", at).executeTakeFirst();
    return Number(res.numDeletedRows ?? 0n);
  }
}
