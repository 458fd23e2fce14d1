import { describe, expect, it } from "vitest";
import { ChallengeTokens } from "../../server/src/challenges/tokens.js";
import { linkExpired } from "./link.js";

describe("a refused challenge link", () => {
  const tokens = new ChallengeTokens("k".repeat(32));
  const at = Date.UTC(2026, 10, 22, 12);
  const token = tokens.sign({ c: "ch_1", e: "env_1", x: at / 1000 + 3600 });

  it("is expired once the expiry it carries has passed", () => {
    expect(linkExpired(token, at)).toBe(false);
    expect(linkExpired(token, at + 3600 * 1000)).toBe(true);
  });

  it("is not valid, not expired, when altered or unreadable", () => {
    expect(linkExpired(`${token}x`, at)).toBe(false);
    expect(linkExpired("not a token", at + 1e12)).toBe(false);
    expect(linkExpired(null, at)).toBe(false);
    expect(linkExpired(`${Buffer.from("[1]").toString("base64url")}.sig`, at + 1e12)).toBe(false);
  });
});
