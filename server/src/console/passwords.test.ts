// Operator passwords: hashed with scrypt, salted, verified in constant time; never stored in clear.
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./passwords.js";

describe("operator passwords", () => {
  it("a hash names scrypt and its parameters, holds neither the password nor a repeat of another hash", async () => {
    const a = await hashPassword("correct horse battery staple");
    const b = await hashPassword("correct horse battery staple");
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toContain("horse");
    expect(a).not.toBe(b);
  });

  it("the right password verifies; a wrong one, a changed hash or no hash at all does not", async () => {
    const h = await hashPassword("s3cret password!");
    expect(await verifyPassword("s3cret password!", h)).toBe(true);
    expect(await verifyPassword("s3cret password?", h)).toBe(false);
    // The hash's first character: all six of its bits are key bits (the last one's low two bits are padding,
    // so changing it from A to B may decode to the same key).
    const hashStart = h.lastIndexOf("$") + 1;
    const changed = h.slice(0, hashStart) + (h[hashStart] === "A" ? "B" : "A") + h.slice(hashStart + 1);
    expect(await verifyPassword("s3cret password!", changed)).toBe(false);
    expect(await verifyPassword("s3cret password!", null)).toBe(false);
    expect(await verifyPassword("s3cret password!", "plain")).toBe(false);
  });
});
