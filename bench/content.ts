// Content scoring time on adversarial inputs ("ReDoS"; docs/security.md): each input of server/src/signals/
// adversarial-content.ts at 100,000 characters, the median of several runs, and the worst input. The work bound is a
// unit test (content.test.ts); this is the timing figure beside it. `npx tsx bench/content.ts` runs it alone.
import { adversarialTexts } from "../server/src/signals/adversarial-content.js";
import { analyseContent } from "../server/src/signals/content.js";

/** A bound with room for a loaded 2-core machine: the old expressions took 13,500 ms on the first input. */
export const CONTENT_BOUND_MS = 25;
const RUNS = 15;

export function contentScoring(): { worst_input: string; worst_median_ms: number; medians_ms: Record<string, number> } {
  const medians: Record<string, number> = {};
  for (const [name, text] of Object.entries(adversarialTexts())) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      analyseContent({ text });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    medians[name] = +(times[Math.floor(RUNS / 2)] ?? 0).toFixed(2);
  }
  const [worst, ms] = Object.entries(medians).sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
  return { worst_input: worst, worst_median_ms: ms, medians_ms: medians };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = contentScoring();
  console.log(JSON.stringify(r, null, 2));
  console.log(
    `worst ${r.worst_input}: ${r.worst_median_ms} ms (bound ${CONTENT_BOUND_MS} ms) ${r.worst_median_ms <= CONTENT_BOUND_MS ? "met" : "NOT MET"}`,
  );
}
