import { afterEach, describe, expect, it, vi } from "vitest";
import { BoundedMap, ShortCache } from "./caches.js";

describe("BoundedMap", () => {
  it("forgets the oldest entry added past its bound, not on a replaced value", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1).set("b", 2).set("b", 3);
    expect([...m]).toEqual([
      ["a", 1],
      ["b", 3],
    ]);
    m.set("c", 4);
    expect([...m.keys()]).toEqual(["b", "c"]);
  });
});

describe("ShortCache", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers from memory within its time, then reads again", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const cache = new ShortCache<number>(1000);
    let reads = 0;
    const load = async () => ++reads;
    expect(await cache.get("k", load)).toBe(1);
    vi.setSystemTime(1_000_999);
    expect(await cache.get("k", load)).toBe(1);
    vi.setSystemTime(1_001_000);
    expect(await cache.get("k", load)).toBe(2);
  });

  it("after an invalidation, reads again, and does not keep a read that was under way", async () => {
    const cache = new ShortCache<string>(60_000);
    expect(await cache.get("k", async () => "old")).toBe("old");
    cache.invalidate("k");
    let finish!: (v: string) => void;
    const underway = cache.get("k", () => new Promise<string>((r) => (finish = r)));
    // A write lands and invalidates while that read is under way: its (possibly old) answer must not be kept.
    cache.invalidate();
    finish("read before the write");
    expect(await underway).toBe("read before the write");
    expect(await cache.get("k", async () => "new")).toBe("new");
    expect(await cache.get("k", async () => "not read")).toBe("new");
  });
});
