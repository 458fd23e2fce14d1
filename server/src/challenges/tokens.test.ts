import { describe, expect, it } from "vitest";
import { ChallengeTokens } from "./tokens.js";

describe("challenge tokens", () => {
  const tokens = new ChallengeTokens("x".repeat(40));
  it("verify what they signed and flag expiry", () => {
    const t = tokens.sign({ c: "ch_1", e: "env_1", x: Math.floor(Date.now() / 1000) + 60 });
    expect(tokens.verify(t)).toMatchObject({ c: "ch_1", e: "env_1", expired: false });
    expect(tokens.verify(t, Date.now() + 120_000)?.expired).toBe(true);
  });
  it("reject forged, tampered or foreign tokens", () => {
    const t = tokens.sign({ c: "ch_1", e: "env_1", x: 9_999_999_999 });
    const [body] = t.split(".");
    const forged = `${Buffer.from(JSON.stringify({ c: "ch_2", e: "env_1", x: 9_999_999_999 })).toString("base64url")}.${t.split(".")[1]}`;
    expect(tokens.verify(forged)).toBeUndefined();
    expect(tokens.verify(`${body}.AAAA`)).toBeUndefined();
    expect(tokens.verify("garbage")).toBeUndefined();
    expect(new ChallengeTokens("y".repeat(40)).verify(t)).toBeUndefined();
  });
});
