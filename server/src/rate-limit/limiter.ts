// The rate limiter shared by the client API and the challenge operations: a sliding-window counter (the current
// fixed window plus the previous one weighted by how much of it still overlaps), counted in PostgreSQL so that every
// instance counts together, or, on the embedded store (one process owns the file), in the file for windows longer than
// a minute (code sends, wrong codes, sign-ins: a restart must not reset them) and in memory for the per-request
// limits of a minute (SqliteRateLimiter says why).
// A request checked against several keys at once is charged to the others only when every key allows it (docs/security.md:
// one noisy IP refused again and again must not use up its client id's budget for everyone else).
import type { Store } from "../store/db.js";
import { type CounterState, RateLimitsRepo } from "../store/rate-limits.js";

export interface RateLimitResult {
  allowed: boolean;
  /** How long until a hit on this key would be allowed again; 0 when allowed. */
  retryAfterMs: number;
  limit: number;
  remaining: number;
}

export interface RateLimitRule {
  key: string;
  limit: number;
  windowMs: number;
}

export interface RateLimiter {
  readonly kind: "memory" | "sqlite" | "postgres";
  /** Counts one hit on `key` and answers whether it stays within `limit` hits per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult>;
  /**
   * Counts one hit on each rule's key in one round trip; answers in the same order. When any rule refuses, the hit is
   * taken back from the keys that allowed it: a refused request costs only the keys that refused it.
   */
  hitMany(rules: RateLimitRule[]): Promise<RateLimitResult[]>;
  /** Takes back one hit counted on `key` in its current window (e.g. an attempt that turned out to be a right code). */
  refund(key: string, windowMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The sliding-window estimate of one counter at time `at`, and when it would next allow a hit. */
export function judge(state: Omit<CounterState, "key">, limit: number, windowMs: number, at: number): RateLimitResult {
  const elapsed = (at - state.windowStart) / windowMs;
  const estimate = state.prevCount * (1 - elapsed) + state.count;
  if (estimate <= limit) return { allowed: true, retryAfterMs: 0, limit, remaining: Math.max(0, Math.floor(limit - estimate)) };
  // The retry is itself a hit: wait until the estimate leaves room for one more.
  let retryAt: number;
  if (state.count >= limit || state.prevCount === 0) {
    // The current window alone is full: wait for the next one, where this window's count weighs count * (1 - f);
    // room for one hit once count * (1 - f) + 1 <= limit.
    retryAt = state.windowStart + windowMs + windowMs * Math.max(0, 1 - (limit - 1) / Math.max(1, state.count));
  } else {
    // The previous window's weight must fall until prev * (1 - f) + count + 1 <= limit.
    retryAt = state.windowStart + windowMs * (1 - (limit - state.count - 1) / state.prevCount);
  }
  // The epsilon keeps float noise (1 - 0.7 = 0.30000000000000004) from adding a millisecond.
  return { allowed: false, retryAfterMs: Math.max(1, Math.ceil(retryAt - at - 1e-6)), limit, remaining: 0 };
}

interface MemoryCounter {
  windowStart: number;
  count: number;
  prevCount: number;
  expiresAt: number;
}

/** Keys kept at most; past it a sweep runs at once, so an address spray cannot grow memory without bound. */
const MEMORY_MAX_KEYS = 500_000;
/** How often expired counters are dropped. */
const SWEEP_MS = 60_000;

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = "memory" as const;
  private readonly counters = new Map<string, MemoryCounter>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly clock: () => number = Date.now) {
    this.timer = setInterval(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  private sweep(): void {
    const at = this.clock();
    for (const [k, c] of this.counters) if (c.expiresAt < at) this.counters.delete(k);
    // Still full of live keys: forget the oldest ones (a Map iterates in insertion order) rather than grow.
    if (this.counters.size > MEMORY_MAX_KEYS) {
      let excess = this.counters.size - MEMORY_MAX_KEYS;
      for (const k of this.counters.keys()) {
        if (excess-- <= 0) break;
        this.counters.delete(k);
      }
    }
  }

  hitSync(key: string, limit: number, windowMs: number): RateLimitResult {
    const at = this.clock();
    const windowStart = Math.floor(at / windowMs) * windowMs;
    let c = this.counters.get(key);
    if (!c) {
      if (this.counters.size >= MEMORY_MAX_KEYS) this.sweep();
      c = { windowStart, count: 0, prevCount: 0, expiresAt: 0 };
      this.counters.set(key, c);
    } else if (c.windowStart !== windowStart) {
      c.prevCount = c.windowStart === windowStart - windowMs ? c.count : 0;
      c.count = 0;
      c.windowStart = windowStart;
    }
    c.count++;
    c.expiresAt = windowStart + 2 * windowMs;
    return judge(c, limit, windowMs, at);
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    return this.hitSync(key, limit, windowMs);
  }

  async hitMany(rules: RateLimitRule[]): Promise<RateLimitResult[]> {
    const results = rules.map((r) => this.hitSync(r.key, r.limit, r.windowMs));
    if (results.some((r) => !r.allowed)) {
      for (const [i, r] of rules.entries()) if (results[i]?.allowed) this.refundSync(r.key, r.windowMs);
    }
    return results;
  }

  refundSync(key: string, windowMs: number): void {
    const c = this.counters.get(key);
    if (c && c.windowStart === Math.floor(this.clock() / windowMs) * windowMs && c.count > 0) c.count--;
  }

  async refund(key: string, windowMs: number): Promise<void> {
    this.refundSync(key, windowMs);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}

export class PostgresRateLimiter implements RateLimiter {
  readonly kind = "postgres" as const;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly repo: RateLimitsRepo,
    private readonly clock: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.repo.prune(this.clock()).catch(() => {}), SWEEP_MS);
    this.timer.unref();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const [r] = await this.hitMany([{ key, limit, windowMs }]);
    return r!;
  }

  async hitMany(rules: RateLimitRule[]): Promise<RateLimitResult[]> {
    const at = this.clock();
    const states = await this.repo.hit(rules, at);
    const byKey = new Map(states.map((s) => [s.key, s]));
    const results = rules.map((r) => {
      const s = byKey.get(r.key);
      return s ? judge(s, r.limit, r.windowMs, at) : { allowed: true, retryAfterMs: 0, limit: r.limit, remaining: r.limit };
    });
    if (results.some((r) => !r.allowed)) {
      // A second round trip only for refused requests: the allowed keys get their hit back.
      await this.repo.refund(
        rules.filter((_r, i) => results[i]?.allowed),
        at,
      );
    }
    return results;
  }

  async refund(key: string, windowMs: number): Promise<void> {
    await this.repo.refund([{ key, windowMs }], this.clock());
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}

/**
 * Windows up to this long are counted in memory on the embedded store: what a restart forgets of them is at most a
 * minute of counts (as PostgreSQL's UNLOGGED counters forget after a crash). Longer ones are kept in the file.
 */
export const MEMORY_WINDOW_MAX_MS = 60_000;

/**
 * The embedded store's limiter. Counters of windows longer than a minute — code sends per recipient and per user (an
 * hour, a day), wrong codes per user (an hour), console sign-ins (15 minutes), admin emails (a day), and any key
 * added with such a window — are rows of the store's `rate_limits` table, counted by the same upsert as on
 * PostgreSQL: in memory they reset at every restart, so a restart (or a crash an attacker can cause) gave every cap
 * back. The per-request limits of a minute (client API per IP and per client id, challenge operations, heartbeats)
 * stay in memory: they run on every client request, and a write there would join every commit batch; a restart
 * forgets at most a minute of them. `hitMany` and `refund` keep their meaning across the two: a request refused by
 * any key is charged to none.
 */
export class SqliteRateLimiter implements RateLimiter {
  readonly kind = "sqlite" as const;
  private readonly memory: MemoryRateLimiter;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly repo: RateLimitsRepo,
    private readonly clock: () => number = Date.now,
  ) {
    this.memory = new MemoryRateLimiter(clock);
    this.timer = setInterval(() => void this.repo.prune(this.clock()).catch(() => {}), SWEEP_MS);
    this.timer.unref();
  }

  private static stored(r: { windowMs: number }): boolean {
    return r.windowMs > MEMORY_WINDOW_MAX_MS;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const [r] = await this.hitMany([{ key, limit, windowMs }]);
    return r!;
  }

  async hitMany(rules: RateLimitRule[]): Promise<RateLimitResult[]> {
    const at = this.clock();
    const stored = rules.filter(SqliteRateLimiter.stored);
    const states = stored.length ? new Map((await this.repo.hit(stored, at)).map((s) => [s.key, s])) : undefined;
    const results = rules.map((r) => {
      if (!SqliteRateLimiter.stored(r)) return this.memory.hitSync(r.key, r.limit, r.windowMs);
      const s = states?.get(r.key);
      return s ? judge(s, r.limit, r.windowMs, at) : { allowed: true, retryAfterMs: 0, limit: r.limit, remaining: r.limit };
    });
    if (results.some((r) => !r.allowed)) {
      const allowed = rules.filter((_r, i) => results[i]?.allowed);
      for (const r of allowed) if (!SqliteRateLimiter.stored(r)) this.memory.refundSync(r.key, r.windowMs);
      await this.repo.refund(allowed.filter(SqliteRateLimiter.stored), at);
    }
    return results;
  }

  async refund(key: string, windowMs: number): Promise<void> {
    if (SqliteRateLimiter.stored({ windowMs })) await this.repo.refund([{ key, windowMs }], this.clock());
    else this.memory.refundSync(key, windowMs);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.memory.close();
  }
}

/** In PostgreSQL when the store is shared by several instances; in the file (and memory) for the embedded store. */
export function createRateLimiter(store: Store): RateLimiter {
  const repo = new RateLimitsRepo(store.db);
  return store.dialect === "postgres" ? new PostgresRateLimiter(repo) : new SqliteRateLimiter(repo);
}
