import { describe, expect, it } from "vitest";
import { ParsedComponentsCache } from "./index.js";

describe("the parsed components cache", () => {
  it("answers for the hash an entry was parsed for, never for another", () => {
    const cache = new ParsedComponentsCache();
    const parsed = { canvas: "c" };
    cache.set("fp_1", "h1", parsed);
    expect(cache.get("fp_1", "h1")).toBe(parsed);
    expect(cache.get("fp_1", "h2")).toBeUndefined();
    expect(cache.get("fp_2", "h1")).toBeUndefined();
  });

  it("replaces a fingerprint's entry after a drift update", () => {
    const cache = new ParsedComponentsCache();
    cache.set("fp_1", "h1", { canvas: "c" });
    const drifted = { canvas: "d" };
    cache.set("fp_1", "h2", drifted);
    expect(cache.get("fp_1", "h2")).toBe(drifted);
    expect(cache.get("fp_1", "h1")).toBeUndefined();
  });

  it("keeps at most its bound, dropping the oldest first", () => {
    const cache = new ParsedComponentsCache(2);
    cache.set("fp_1", "h", {});
    cache.set("fp_2", "h", {});
    cache.set("fp_1", "h2", {}); // replaced: now the newest
    cache.set("fp_3", "h", {});
    expect(cache.get("fp_2", "h")).toBeUndefined();
    expect(cache.get("fp_1", "h2")).toBeDefined();
    expect(cache.get("fp_3", "h")).toBeDefined();
  });
});
