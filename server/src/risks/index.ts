// Scores every risk of the table for one evaluation, and gives each risk its identifiers (docs/server-api.md, the
// evaluation object): `definition` names the risk definition (`rdef_<category>`, stable across releases: key off it), `id` names the
// risk itself (`rsk_<evaluation>.<category>`: one per evaluation and category, the same on every read).
import type { ChecksSnapshot, Risk, Severity } from "@tessera/sdk/contract";
import { compare, evaluateCondition } from "../policies/conditions.js";
import { RISKS, type RiskDefinition } from "./table.js";

export function severityOf(def: RiskDefinition, score: number): Severity {
  if (score >= def.cutoffs.maximum) return "maximum";
  if (score >= def.cutoffs.high) return "high";
  if (score >= def.cutoffs.medium) return "medium";
  return "low";
}

/** The stable identifier of a risk definition: what integrations key off, whatever the weights become. */
export function definitionId(category: string): string {
  return `rdef_${category}`;
}

/** The risk's own identifier: derived from its evaluation, so it needs no storage and reads back the same. */
export function riskId(evaluationId: string, category: string): string {
  return `rsk_${evaluationId.slice(evaluationId.indexOf("_") + 1)}.${category}`;
}

/** Whether the risk named `name` is measured on an evaluation with these checks (RiskDefinition.measuredWhen). */
export function measuredOn(name: string, checks: ChecksSnapshot, table: RiskDefinition[] = RISKS): boolean {
  const def = table.find((d) => d.name === name);
  return !!def && measured(def, { checks, lists: new Map() });
}

function measured(def: RiskDefinition, ctx: { checks: ChecksSnapshot; lists: Map<string, Set<string>> }): boolean {
  return !def.measuredWhen || evaluateCondition(ctx, def.measuredWhen);
}

export function scoreRisks(checks: ChecksSnapshot, evaluationId: string, table: RiskDefinition[] = RISKS): Risk[] {
  const ctx = { checks, lists: new Map<string, Set<string>>() };
  return table.map((def) => {
    let score = 0;
    const indicators: string[] = [];
    const weights = measured(def, ctx) ? def.weights : [];
    for (const weight of weights) {
      if (compare(ctx, weight)) {
        score += weight.points;
        if (!indicators.includes(weight.indicator)) indicators.push(weight.indicator);
      }
    }
    score = Math.min(100, score);
    return {
      id: riskId(evaluationId, def.name),
      definition: definitionId(def.name),
      name: def.name,
      severity: severityOf(def, score),
      score,
      indicators,
    };
  });
}

/**
 * An evaluation's risks as stored: `[name, score, severity, indicators]` each. The wire objects repeat the ids on every
 * row; the stored form keeps what the evaluation decided (score, severity, indicators, fixed at the time) and derives
 * the ids from the category and the evaluation when read.
 */
type StoredRisk = [name: string, score: number, severity: Severity, indicators: string[]];

export function storeRisks(risks: Risk[]): string {
  return JSON.stringify(risks.map((r): StoredRisk => [r.name, r.score, r.severity, r.indicators]));
}

/** Reads the stored form of an evaluation's risks (or the wire objects stored before it, as they were). */
export function loadRisks(stored: string, evaluationId: string): Risk[] {
  const parsed = JSON.parse(stored) as Array<StoredRisk | Risk>;
  return parsed.map((x) =>
    Array.isArray(x)
      ? {
          id: riskId(evaluationId, x[0]),
          definition: definitionId(x[0]),
          name: x[0] as Risk["name"],
          severity: x[2],
          score: x[1],
          indicators: x[3],
        }
      : x,
  );
}

/** Category and severity of each stored risk, for code that compares levels and names no risk. */
export function riskLevels(stored: string): Pick<Risk, "name" | "severity">[] {
  const parsed = JSON.parse(stored) as Array<StoredRisk | Risk>;
  return parsed.map((x) => (Array.isArray(x) ? { name: x[0] as Risk["name"], severity: x[2] } : x));
}

/** The names of a risk's derived checks, written once per risk of the table rather than on every evaluation. */
const RISK_CHECK_NAMES = new Map<string, { score: string; severity: string }>();

/** The derived checks `risk.<name>.score` and `risk.<name>.severity` that policies may test. */
export function riskChecks(risks: Risk[]): ChecksSnapshot {
  const out: ChecksSnapshot = {};
  for (const r of risks) {
    let names = RISK_CHECK_NAMES.get(r.name);
    if (!names) {
      names = { score: `risk.${r.name}.score`, severity: `risk.${r.name}.severity` };
      RISK_CHECK_NAMES.set(r.name, names);
    }
    out[names.score] = r.score;
    out[names.severity] = r.severity;
  }
  return out;
}
