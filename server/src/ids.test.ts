import { afterEach, describe, expect, it, vi } from "vitest";
import { newId, timePart } from "./ids.js";

describe("newId", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is the prefix and 24 base64url characters, each id its own", () => {
    const ids = Array.from({ length: 2000 }, () => newId("ev"));
    for (const id of ids) expect(id).toMatch(/^ev_[A-Za-z0-9_-]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Made in few milliseconds, they differ in their 16 random characters (96 bits).
    expect(new Set(ids.map((id) => id.slice(11))).size).toBe(ids.length);
  });

  it("sorts as its creation time, in byte order (SQLite's and PostgreSQL's C ordering)", () => {
    // Times across 64-boundaries of each character and years apart, in random order.
    const times = [0, 63, 64, 4095, 4096, 1_700_000_000_000, 1_700_000_000_063, 1_700_000_000_064, 1_795_881_251_376, 2 ** 47 + 5];
    for (let i = 0; i < 200; i++) times.push(Math.floor(Math.random() * 2 ** 45));
    const made = times.map((t) => {
      vi.useFakeTimers({ now: t, toFake: ["Date"] });
      return { t, id: newId("ev") };
    });
    const byId = [...made].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
    const byTime = [...made].sort((a, b) => a.t - b.t);
    expect(byId.map((x) => x.t)).toEqual(byTime.map((x) => x.t));
    expect(timePart(1_700_000_000_064) > timePart(1_700_000_000_063)).toBe(true);
  });
});
