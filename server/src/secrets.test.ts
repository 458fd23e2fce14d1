// The server's keys (docs/security.md): one key per use derived from the master key, and sealing that opens only under the
// key it was sealed with.
import { describe, expect, it } from "vitest";
import { deriveServerKeys, seal, unseal } from "./secrets.js";

describe("server keys", () => {
  it("derive a distinct key per use, the same from the same master key", () => {
    const a = deriveServerKeys("m".repeat(32));
    expect(a.codeHash).toHaveLength(32);
    expect(a.codeHash.equals(a.sealing)).toBe(false);
    expect(deriveServerKeys("m".repeat(32)).codeHash.equals(a.codeHash)).toBe(true);
    expect(deriveServerKeys("n".repeat(32)).codeHash.equals(a.codeHash)).toBe(false);
  });

  it("seal hides the value and opens only under the same key, unaltered", () => {
    const { sealing } = deriveServerKeys("m".repeat(32));
    const sealed = seal(sealing, "idsec_secret-value");
    expect(sealed).not.toContain("secret");
    expect(seal(sealing, "idsec_secret-value")).not.toBe(sealed);
    expect(unseal(sealing, sealed)).toBe("idsec_secret-value");
    expect(unseal(deriveServerKeys("n".repeat(32)).sealing, sealed)).toBeUndefined();
    const parts = sealed.split(".");
    parts[2] = `${parts[2]?.slice(0, -2)}AA`;
    expect(unseal(sealing, parts.join("."))).toBeUndefined();
    expect(unseal(sealing, "not sealed")).toBeUndefined();
  });
});
