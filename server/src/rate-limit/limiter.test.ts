// The sliding-window limiter: allows up to the limit, refuses past it with a Retry-After that ends the refusal,
// and lets the previous window's hits weigh less as the current window advances.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../store/db.js";
import { migrate } from "../store/migrations/index.js";
import { RateLimitsRepo } from "../store/rate-limits.js";
import type { RateLimitTables } from "../store/tables/rate-limits.js";
import { judge, MEMORY_WINDOW_MAX_MS, MemoryRateLimiter, SqliteRateLimiter } from "./limiter.js";

describe("memory rate limiter", () => {
  it("allows `limit` hits in a window, refuses the next with a wait until the count has decayed", async () => {
    let t = 60_000 * 100;
    const rl = new MemoryRateLimiter(() => t);
    for (let i = 0; i < 5; i++) expect((await rl.hit("k", 5, 60_000)).allowed).toBe(true);
    const refused = await rl.hit("k", 5, 60_000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    // Other keys are counted apart.
    expect((await rl.hit("other", 5, 60_000)).allowed).toBe(true);
    t += refused.retryAfterMs;
    expect((await rl.hit("k", 5, 60_000)).allowed).toBe(true);
    await rl.close();
  });

  it("a request refused by one of its keys is not charged to the others; refund takes one hit back", async () => {
    const rl = new MemoryRateLimiter(() => 60_000 * 100);
    const rules = (ip: string) => [
      { key: `ip:${ip}`, limit: 2, windowMs: 60_000 },
      { key: "id:shared", limit: 3, windowMs: 60_000 },
    ];
    for (let i = 0; i < 2; i++) expect((await rl.hitMany(rules("noisy"))).every((r) => r.allowed)).toBe(true);
    // The noisy IP is refused from now on, however often it asks; the shared key keeps its 2 hits.
    for (let i = 0; i < 10; i++) expect((await rl.hitMany(rules("noisy")))[0]?.allowed).toBe(false);
    const other = await rl.hitMany(rules("quiet"));
    expect(other.map((r) => r.allowed)).toEqual([true, true]);
    expect(other[1]?.remaining).toBe(0);
    // Refused by the shared key now: the IP key that allowed it gets its hit back (this is its only one).
    expect((await rl.hitMany(rules("third"))).map((r) => r.allowed)).toEqual([true, false]);
    expect((await rl.hit("ip:third", 2, 60_000)).remaining).toBe(1);
    // The shared key counted its own refusal (4 hits); two refunds bring it back under its limit.
    await rl.refund("id:shared", 60_000);
    await rl.refund("id:shared", 60_000);
    expect((await rl.hitMany(rules("fourth"))).map((r) => r.allowed)).toEqual([true, true]);
    await rl.close();
  });

  it("weighs the previous window by how much of it still overlaps", () => {
    // 10 hits last window, 0 so far, a quarter into this one: estimate 7.5 + 1 → allowed under 10, refused under 8.
    const state = { windowStart: 0, count: 1, prevCount: 10 };
    expect(judge(state, 10, 1000, 250).allowed).toBe(true);
    const r = judge(state, 8, 1000, 250);
    expect(r.allowed).toBe(false);
    // The retry is a second hit in this window: 10 * (1 - f) + 2 <= 8 once f >= 0.4, 150 ms after 250.
    expect(r.retryAfterMs).toBe(150);
  });
});

describe("embedded-store rate limiter", () => {
  it("keeps windows longer than a minute in the file, and charges a refused request to no key of either tier", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-limiter-"));
    const store = openStore({ sqlitePath: path.join(dir, "t.db") });
    await migrate(store.db);
    const t = 3_600_000 * 1000;
    const rl = new SqliteRateLimiter(new RateLimitsRepo(store.db), () => t);
    try {
      const rules = [
        { key: "client-ip:1", limit: 5, windowMs: MEMORY_WINDOW_MAX_MS },
        { key: "code-to:a", limit: 1, windowMs: 3_600_000 },
      ];
      expect((await rl.hitMany(rules)).map((r) => r.allowed)).toEqual([true, true]);
      // Refused by the stored cap: the in-memory key gets its hit back (it has 4 left, not 3).
      expect((await rl.hitMany(rules)).map((r) => r.allowed)).toEqual([true, false]);
      expect((await rl.hit("client-ip:1", 5, MEMORY_WINDOW_MAX_MS)).remaining).toBe(3);
      // Only the long window is a row of the store; a refund takes its hit back there.
      const rows = await store.db.withTables<RateLimitTables>().selectFrom("rate_limits").select(["key", "count"]).execute();
      expect(rows).toEqual([{ key: "code-to:a", count: 2 }]);
      await rl.refund("code-to:a", 3_600_000);
      await rl.refund("code-to:a", 3_600_000);
      expect((await rl.hit("code-to:a", 1, 3_600_000)).allowed).toBe(true);
    } finally {
      await rl.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
