// The overview's figures (GET /v3/stats/evaluations; docs/console.md): verdicts over time, per action, top reasons and
// challenge outcomes for one environment and period. Closed hours come from the roll-ups, the rest (the hour or so
// since the last roll-up, or a period edge inside an hour) from the evaluations themselves.
import type { EvaluationStats } from "@tessera/sdk/contract";
import { badRequest } from "../errors.js";
import { type CountRow, countEvaluations, DAY_MS, HOUR_MS } from "../store/evaluation-stats.js";
import type { Repos } from "../store/repos.js";
import { iso } from "../time.js";

const SIZE = { hour: HOUR_MS, day: DAY_MS } as const;
/** Buckets in one answer: a month of hours, a bit over a year of days. */
const MAX_BUCKETS = { hour: 24 * 31, day: 400 } as const;
const DEFAULT_SPAN = { hour: DAY_MS, day: 7 * DAY_MS } as const;
const TOP_REASONS = 10;

export async function evaluationStats(
  services: { repos: Repos },
  environmentId: string,
  q: { from?: string; to?: string; interval: "hour" | "day" },
): Promise<EvaluationStats> {
  const size = SIZE[q.interval];
  const to = q.to ? Date.parse(q.to) : Date.now();
  // Buckets start on UTC hour or day boundaries.
  const from = Math.floor((q.from ? Date.parse(q.from) : to - DEFAULT_SPAN[q.interval]) / size) * size;
  if (from >= to) throw badRequest("from must be before to", "from");
  if ((to - from) / size > MAX_BUCKETS[q.interval])
    throw badRequest(`At most ${MAX_BUCKETS[q.interval]} ${q.interval}s per request: narrow from/to or use a longer interval`, "interval");

  const repo = services.repos.evaluationStats;
  const watermark = (await repo.watermark()) ?? from;
  const rolledEnd = Math.max(from, Math.min(watermark, Math.floor(to / HOUR_MS) * HOUR_MS));
  // By day: whole days from the daily roll-ups, the rest of the rolled-up hours from the hourly ones.
  const daysEnd = q.interval === "day" ? Math.max(from, Math.floor(rolledEnd / DAY_MS) * DAY_MS) : from;
  const [days, rolled, live, challenges] = await Promise.all([
    repo.summed(environmentId, from, daysEnd, "evaluation_rollups_daily"),
    repo.summed(environmentId, daysEnd, rolledEnd, "evaluation_rollups"),
    repo.live(environmentId, rolledEnd, to),
    repo.challenges(environmentId, from, to),
  ]);
  // Live counts are per hour and action: each feeds the three shapes; summed roll-ups feed the one they were summed for.
  const counts: CountRow[] = [...days, ...rolled];
  for (const c of countEvaluations(live)) {
    if (c.kind === "reason") counts.push({ ...c, bucket: -1, action: "" });
    else counts.push({ ...c, action: "" }, { ...c, bucket: -1 });
  }

  const buckets = new Map<number, { total: number; verdicts: Record<string, number> }>();
  for (let t = from; t < to; t += size) buckets.set(t, { total: 0, verdicts: {} });
  const actions = new Map<string, { total: number; verdicts: Record<string, number> }>();
  const verdicts: Record<string, number> = {};
  const reasons = new Map<string, number>();
  let total = 0;
  for (const c of counts) {
    if (c.kind === "reason") {
      reasons.set(c.key, (reasons.get(c.key) ?? 0) + c.count);
      continue;
    }
    if (c.bucket >= 0) {
      // Verdicts by hour: the totals and the buckets.
      total += c.count;
      verdicts[c.key] = (verdicts[c.key] ?? 0) + c.count;
      const b = buckets.get(Math.floor(c.bucket / size) * size);
      if (b) {
        b.total += c.count;
        b.verdicts[c.key] = (b.verdicts[c.key] ?? 0) + c.count;
      }
      continue;
    }
    const a = actions.get(c.action) ?? { total: 0, verdicts: {} };
    a.total += c.count;
    a.verdicts[c.key] = (a.verdicts[c.key] ?? 0) + c.count;
    actions.set(c.action, a);
  }
  const statuses: Record<string, number> = {};
  const types: Record<string, number> = {};
  let challengeTotal = 0;
  for (const c of challenges) {
    challengeTotal += c.count;
    statuses[c.status] = (statuses[c.status] ?? 0) + c.count;
    types[c.type] = (types[c.type] ?? 0) + c.count;
  }
  return {
    from: iso(from),
    to: iso(to),
    interval: q.interval,
    total,
    verdicts,
    buckets: [...buckets].map(([start, b]) => ({ start: iso(start), ...b })),
    actions: [...actions].map(([action, a]) => ({ action, ...a })).sort((x, y) => y.total - x.total),
    top_reasons: [...reasons]
      .map(([reason, count]) => ({ reason, count }))
      .sort((x, y) => y.count - x.count || x.reason.localeCompare(y.reason))
      .slice(0, TOP_REASONS),
    challenges: { total: challengeTotal, statuses, types },
  };
}
