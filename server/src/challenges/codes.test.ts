import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { codeMatches, hashCode, maskEmail, maskPhone, newCode } from "./codes.js";

describe("one-time codes", () => {
  it("are 6 digits, zero-padded, and vary", () => {
    const codes = new Set(Array.from({ length: 200 }, newCode));
    for (const c of codes) expect(c).toMatch(/^\d{6}$/);
    expect(codes.size).toBeGreaterThan(190);
  });

  it("match only the right code for the right challenge under the right key", () => {
    const key = Buffer.alloc(32, 1);
    const h = hashCode(key, "ch_1", "123456");
    expect(codeMatches(key, "ch_1", "123456", h)).toBe(true);
    expect(codeMatches(key, "ch_1", "123457", h)).toBe(false);
    expect(codeMatches(key, "ch_2", "123456", h)).toBe(false);
    expect(codeMatches(Buffer.alloc(32, 2), "ch_1", "123456", h)).toBe(false);
    expect(h).not.toContain("123456");
    // Not the bare SHA-256 of the code that a copy of the database could be tried against.
    expect(h).not.toBe(createHash("sha256").update("ch_1:123456").digest("hex"));
  });

  it("mask contacts", () => {
    expect(maskEmail("alice@example.com")).toBe("a****@example.com");
    expect(maskPhone("+33612345678")).toBe("+33•••••••78");
  });
});
