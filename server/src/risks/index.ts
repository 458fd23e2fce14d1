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

/**
 * An evaluation's risks as stored: `[name, score, severity, indicators]` each. The wire objects repeat the table's
 * id and definition on every row (1.6 KB of an evaluation's 4 KB); the stored form keeps what the evaluation decided
 * (score, severity, indicators, fixed at the time) and takes the rest from the table when read.
 */
type StoredRisk = [name: string, score: number, severity: Severity, indicators: string[]];

export function storeRisks(risks: Risk[]): string {
  return JSON.stringify(risks.map((r): StoredRisk => [r.name, r.score, r.severity, r.indicators]));
}

const DEFINITIONS = new Map(RISKS.map((d) => [d.name as string, d.definition]));

/** Reads the stored form (or the wire objects stored before it). */
export function loadRisks(stored: string): Risk[] {
  const parsed = JSON.parse(stored) as Array<StoredRisk | Risk>;
  return parsed.map((x) =>
    Array.isArray(x)
      ? {
          id: `risk_${x[0]}`,
          definition: DEFINITIONS.get(x[0]) ?? "",
          name: x[0] as Risk["name"],
          severity: x[2],
          score: x[1],
          indicators: x[3],
        }
      : x,
  );
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
