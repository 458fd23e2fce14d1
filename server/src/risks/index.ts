// Scores every risk of the table for one evaluation.
import type { ChecksSnapshot, Risk, Severity } from "@tessera/sdk/contract";
import { compare } from "../policies/conditions.js";
import { RISKS, type RiskDefinition } from "./table.js";

export function severityOf(def: RiskDefinition, score: number): Severity {
  if (score >= def.cutoffs.maximum) return "maximum";
  if (score >= def.cutoffs.high) return "high";
  if (score >= def.cutoffs.medium) return "medium";
  return "low";
}

export function scoreRisks(checks: ChecksSnapshot, table: RiskDefinition[] = RISKS): Risk[] {
  const ctx = { checks, lists: new Map<string, Set<string>>() };
  return table.map((def) => {
    let score = 0;
    const indicators: string[] = [];
    for (const weight of def.weights) {
      if (compare(ctx, weight)) {
        score += weight.points;
        if (!indicators.includes(weight.indicator)) indicators.push(weight.indicator);
      }
    }
    score = Math.min(100, score);
    return { id: `risk_${def.name}`, definition: def.definition, name: def.name, severity: severityOf(def, score), score, indicators };
  });
}

/** The derived checks `risk.<name>.score` and `risk.<name>.severity` that policies may test. */
export function riskChecks(risks: Risk[]): ChecksSnapshot {
  const out: ChecksSnapshot = {};
  for (const r of risks) {
    out[`risk.${r.name}.score`] = r.score;
    out[`risk.${r.name}.severity`] = r.severity;
  }
  return out;
}
