// The backtest's scan of stored risks gives exactly the checks loadRisks + riskChecks give, for the names it reads,
// on the stored form and on anything else (older wire objects, escapes, numbers in other spellings).
import type { ChecksSnapshot, Risk } from "@tessera/sdk/contract";
import { describe, expect, it } from "vitest";
import { loadRisks, riskChecks, scoreRisks, storeRisks } from "../risks/index.js";
import { RiskCheckReader } from "./stored-risk-checks.js";

const ID = "ev_abc";

/** What the full reading gives for these names (the others dropped). */
function expected(stored: string, names: string[]): ChecksSnapshot {
  const all = riskChecks(loadRisks(stored, ID));
  const out: ChecksSnapshot = {};
  for (const [k, v] of Object.entries(all)) if (names.includes(k.split(".")[1]!)) out[k] = v;
  return out;
}

function read(stored: string, names: string[]): ChecksSnapshot {
  const checks: ChecksSnapshot = { is_bot: false };
  new RiskCheckReader(names).read(stored, ID, checks);
  const out: ChecksSnapshot = {};
  for (const [k, v] of Object.entries(checks)) if (k.startsWith("risk.") && names.includes(k.split(".")[1]!)) out[k] = v;
  expect(checks.is_bot).toBe(false);
  return out;
}

describe("RiskCheckReader", () => {
  const scored = storeRisks(scoreRisks({ is_new_fingerprint: true, is_new_ip: true, ip_user_count: 40, is_bot: true }, ID));

  it("reads the score and severity of the named risks from the stored form", () => {
    const checks: ChecksSnapshot = {};
    new RiskCheckReader(["bot", "ato"]).read('[["ato",60,"high",["new_ip","shared_ip"]],["bot",100,"maximum",[]]]', ID, checks);
    expect(checks).toEqual({ "risk.ato.score": 60, "risk.ato.severity": "high", "risk.bot.score": 100, "risk.bot.severity": "maximum" });
  });

  it("agrees with loadRisks and riskChecks on every form", () => {
    const wire: Risk[] = loadRisks(scored, ID);
    const forms = [
      scored,
      "[]",
      '[["bot",0,"low",[]]]',
      '[["bot",12.5,"low",["a","b"]],["ato",-3,"low",[]]]',
      '[["bot",1e2,"maximum",["x"]]]',
      '[["bot",1E+2,"maximum",["x"]]]',
      '[["bot",0.5e-1,"low",[]]]',
      // A name that begins another's, and a name given twice (the later one wins, as in riskChecks).
      '[["bo",7,"low",[]],["bot_x",8,"low",[]],["bot",9,"medium",[]],["bot",10,"high",["y"]]]',
      // Indicators holding brackets and commas inside their strings.
      '[["bot",20,"low",["a]b","c,d","[e"]],["ato",30,"medium",["]"]]]',
      // The wire objects stored before the compact form.
      JSON.stringify(wire),
      // A mix, and escapes: read by JSON.parse.
      JSON.stringify([["ato", 5, "low", []], wire[6]]),
      '[["bot",33,"l\\u006fw",["q\\"r"]]]',
      '[["b\\u006ft",44,"high",[]]]',
      // Numbers JSON.stringify would not write but JSON.parse reads.
      '[["bot",-0,"low",[]]]',
    ];
    for (const stored of forms) {
      for (const names of [["bot"], ["ato", "bot"], ["content_abuse"], ["bo"], ["bot_x", "bot"]]) {
        expect(read(stored, names), `${stored} ${names}`).toEqual(expected(stored, names));
      }
    }
  });

  it("writes nothing when no risk is named", () => {
    const checks: ChecksSnapshot = {};
    new RiskCheckReader([]).read(scored, ID, checks);
    expect(checks).toEqual({});
  });
});
