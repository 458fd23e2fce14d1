import { describe, expect, it } from "vitest";
import { newId } from "../ids.js";
import { definitionId, loadRisks, riskId, riskLevels, scoreRisks, storeRisks } from "./index.js";
import { RISKS } from "./table.js";

const EV = "ev_AbCdEf0123456789_-xyzAbCd";

describe("stored risks", () => {
  const risks = scoreRisks(
    { is_new_fingerprint: true, is_new_ip: true, ip_is_anonymous: true, impossible_travel: true, action: "login" },
    EV,
  );

  it("come back as the wire objects they were scored as", () => {
    expect(risks.some((r) => r.score > 0)).toBe(true);
    expect(loadRisks(storeRisks(risks), EV)).toEqual(risks);
  });

  it("are several times smaller than the wire objects", () => {
    expect(storeRisks(risks).length * 3).toBeLessThan(JSON.stringify(risks).length);
  });

  it("keep the severity decided at the time, whatever the table says now", () => {
    const stored = JSON.parse(storeRisks(risks)) as unknown[][];
    stored[0]![2] = "medium";
    expect(loadRisks(JSON.stringify(stored), EV)[0]?.severity).toBe("medium");
    expect(riskLevels(JSON.stringify(stored))[0]).toEqual({ name: risks[0]?.name, severity: "medium" });
  });

  it("read rows stored as wire objects", () => {
    expect(loadRisks(JSON.stringify(risks), EV)).toEqual(risks);
  });
});

describe("risk identifiers", () => {
  it("a definition is named by its category alone, the same for every evaluation and every table version", () => {
    const a = scoreRisks({}, newId("ev"));
    const b = scoreRisks({ impossible_travel: true }, newId("ev"));
    expect(a.map((r) => r.definition)).toEqual(b.map((r) => r.definition));
    expect(a.map((r) => r.definition)).toEqual(RISKS.map((d) => `rdef_${d.name}`));
    expect(definitionId("ato")).toBe("rdef_ato");
  });

  it("a risk's own id is unique per evaluation and category, and reads back the same", () => {
    const [e1, e2] = [newId("ev"), newId("ev")];
    const r1 = scoreRisks({}, e1);
    const r2 = scoreRisks({}, e2);
    expect(new Set([...r1, ...r2].map((r) => r.id)).size).toBe(r1.length + r2.length);
    expect(loadRisks(storeRisks(r1), e1).map((r) => r.id)).toEqual(r1.map((r) => r.id));
    expect(riskId(e1, "account_sharing")).toBe(`rsk_${e1.slice(3)}.account_sharing`);
  });
});
