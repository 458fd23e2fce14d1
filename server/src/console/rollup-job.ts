// Rolls closed hours of evaluations up for the overview (store/evaluation-stats.ts), every minute, in every instance
// that runs the workers (jobs/index.ts): the watermark's compare-and-set makes each hour rolled up once. An hour is closed
// CLOSE_LAG_MS after it ends, so that an evaluation stamped just before the hour's end has been committed.
import type { EvaluationStatsRepo } from "../store/evaluation-stats.js";
import { HOUR_MS } from "../store/evaluation-stats.js";

const CLOSE_LAG_MS = 2 * 60 * 1000;
export const ROLLUP_EVERY_MS = 60 * 1000;
export const ROLLUP_FIRST_MS = 5_000;
/** Hours rolled up per run: a week of backlog (a store upgraded with history) clears in minutes, in small steps. */
const HOURS_PER_RUN = 24 * 7;

/** Rolls up every closed hour not rolled up yet (at most `maxHours`); answers how many it rolled up. */
export async function rollUp(repo: EvaluationStatsRepo, at: number, retentionDays: number, maxHours = HOURS_PER_RUN, page?: number) {
  const closedUntil = Math.floor((at - CLOSE_LAG_MS) / HOUR_MS) * HOUR_MS;
  let watermark = await repo.watermark();
  if (watermark === undefined) {
    // First run: from the hour of the oldest evaluation (a store upgraded with history), or from now.
    const oldest = await repo.oldestEvaluationAt();
    await repo.startWatermark(oldest === undefined ? closedUntil : Math.min(closedUntil, Math.floor(oldest / HOUR_MS) * HOUR_MS));
    watermark = (await repo.watermark()) ?? closedUntil;
  }
  let done = 0;
  while (watermark < closedUntil && done < maxHours) {
    // Another instance moved it: start again from what it wrote.
    if (!(await repo.rollUpHour(watermark, watermark, page))) break;
    watermark += HOUR_MS;
    done++;
  }
  await repo.pruneBefore(at - retentionDays * 24 * HOUR_MS);
  return done;
}
