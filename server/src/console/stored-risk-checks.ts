// The backtest's reading of an evaluation's stored risks (risks/index.ts storeRisks: `[[name, score, severity,
// [indicators…]], …]` as JSON.stringify writes it): only the `risk.<name>.score` and `.severity` checks of the risks
// the policies test, read off the text without building the array. JSON.parse of the 300 characters and the Risk
// objects of loadRisks cost 2.2 µs an evaluation (220 ms of a 100,000-evaluation backtest, measured); this scan
// 0.8 µs. Anything it does not recognise as that exact form (the wire objects stored before it, an escape, a number
// JSON would not write) is read by loadRisks and riskChecks instead, so the answer is theirs in every case.
import type { ChecksSnapshot } from "@tessera/sdk/contract";
import { loadRisks, riskChecks } from "../risks/index.js";

/** A number as JSON.stringify writes it (what Number then reads exactly as JSON.parse would). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const QUOTE = 34;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;

/** The risks a backtest reads, with their check names built once. */
export class RiskCheckReader {
  private readonly names: string[];
  private readonly scores: string[];
  private readonly severities: string[];
  private readonly found: number[] = [];

  constructor(names: Iterable<string>) {
    this.names = [...new Set(names)];
    this.scores = this.names.map((n) => `risk.${n}.score`);
    this.severities = this.names.map((n) => `risk.${n}.severity`);
  }

  get empty(): boolean {
    return this.names.length === 0;
  }

  /**
   * Writes into `checks` the score and severity checks of the named risks that `stored` holds (later entries of a
   * name win, as in riskChecks). Risks not named may be written too (when the stored form is an older one).
   */
  read(stored: string, evaluationId: string, checks: ChecksSnapshot): void {
    if (this.names.length === 0) return;
    if (!this.scan(stored, checks)) Object.assign(checks, riskChecks(loadRisks(stored, evaluationId)));
  }

  /** The scan of the compact form; false (having written nothing) when `s` is not exactly that form. */
  private scan(s: string, checks: ChecksSnapshot): boolean {
    // Without a backslash every quote delimits a string, and a string's text is its value.
    if (s.indexOf("\\") >= 0) return false;
    const n = s.length;
    if (s.charCodeAt(0) !== OPEN) return false;
    // Per named risk found: its index and where its score and severity lie, written once the whole text is checked.
    const found = this.found;
    found.length = 0;
    let i = 1;
    if (s.charCodeAt(i) !== CLOSE) {
      for (;;) {
        // ["name",score,"severity",[ "indicator",… ]]
        if (s.charCodeAt(i) !== OPEN || s.charCodeAt(i + 1) !== QUOTE) return false;
        const nameAt = i + 2;
        const nameEnd = s.indexOf('"', nameAt);
        if (nameEnd < 0 || s.charCodeAt(nameEnd + 1) !== COMMA) return false;
        const scoreEnd = s.indexOf(",", nameEnd + 2);
        if (scoreEnd < 0 || s.charCodeAt(scoreEnd + 1) !== QUOTE) return false;
        const severityAt = scoreEnd + 2;
        const severityEnd = s.indexOf('"', severityAt);
        if (severityEnd < 0 || s.charCodeAt(severityEnd + 1) !== COMMA || s.charCodeAt(severityEnd + 2) !== OPEN) return false;
        let j = severityEnd + 3;
        if (s.charCodeAt(j) !== CLOSE) {
          for (;;) {
            if (s.charCodeAt(j) !== QUOTE) return false;
            const end = s.indexOf('"', j + 1);
            if (end < 0) return false;
            j = end + 1;
            const c = s.charCodeAt(j);
            if (c === CLOSE) break;
            if (c !== COMMA) return false;
            j++;
          }
        }
        if (s.charCodeAt(j + 1) !== CLOSE) return false;
        for (let k = 0; k < this.names.length; k++) {
          const name = this.names[k]!;
          if (nameEnd - nameAt === name.length && s.startsWith(name, nameAt)) {
            found.push(k, nameEnd + 2, scoreEnd, severityAt, severityEnd);
          }
        }
        i = j + 2;
        const c = s.charCodeAt(i);
        if (c === CLOSE) break;
        if (c !== COMMA) return false;
        i++;
      }
    }
    if (i + 1 !== n) return false;
    for (let f = 0; f < found.length; f += 5) {
      if (!JSON_NUMBER.test(s.slice(found[f + 1]!, found[f + 2]!))) return false;
    }
    for (let f = 0; f < found.length; f += 5) {
      const k = found[f]!;
      checks[this.scores[k]!] = Number(s.slice(found[f + 1]!, found[f + 2]!));
      checks[this.severities[k]!] = s.slice(found[f + 3]!, found[f + 4]!);
    }
    return true;
  }
}
