import { describe, expect, it } from "vitest";
import { loadRisks, scoreRisks, storeRisks } from "./index.js";

describe("stored risks", () => {
  const risks = scoreRisks({ is_new_fingerprint: true, is_new_ip: true, ip_is_anonymous: true, impossible_travel: true, action: "login" });

  it("come back as the wire objects they were scored as", () => {
    expect(risks.some((r) => r.score > 0)).toBe(true);
    expect(loadRisks(storeRisks(risks))).toEqual(risks);
  });

  it("are several times smaller than the wire objects", () => {
    expect(storeRisks(risks).length * 3).toBeLessThan(JSON.stringify(risks).length);
  });

  it("keep the severity decided at the time, whatever the table says now", () => {
    const stored = JSON.parse(storeRisks(risks)) as unknown[][];
    stored[0]![2] = "medium";
    expect(loadRisks(JSON.stringify(stored))[0]?.severity).toBe("medium");
  });

  it("read rows stored as wire objects", () => {
    expect(loadRisks(JSON.stringify(risks))).toEqual(risks);
  });
});
