// Overview (docs/console.md): verdicts over time, top reasons, challenge outcomes, by action, and each environment's total.
import type { EvaluationStats } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { get, query } from "../api.js";
import { CountBars, VerdictBars } from "../charts.js";
import { lang, t } from "../i18n/index.js";
import { environment, project } from "../state.js";
import { Field, Show, Table, Title, useData, Verdict } from "../ui.js";

const PERIODS = {
  day: { ms: 24 * 3600e3, interval: "hour" },
  week: { ms: 7 * 24 * 3600e3, interval: "day" },
  month: { ms: 30 * 24 * 3600e3, interval: "day" },
} as const;
type Period = keyof typeof PERIODS;

/** Stats of another environment of the project: the same API, with that environment's header. */
async function statsOf(environmentId: string, q: string): Promise<EvaluationStats> {
  const res = await fetch(`/v3/stats/evaluations${q}`, {
    credentials: "same-origin",
    headers: { accept: "application/json", "x-tessera-environment": environmentId },
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as EvaluationStats;
}

export function Overview() {
  const m = t.value.overview;
  const [period, setPeriod] = useState<Period>("week");
  const p = PERIODS[period];
  const q = query({ interval: p.interval, from: new Date(Date.now() - p.ms).toISOString() });
  const stats = useData(() => get<EvaluationStats>(`/v3/stats/evaluations${q}`), [period]);
  const envs = project.value?.environments ?? [];
  const perEnv = useData(
    () => Promise.all(envs.map((e) => statsOf(e.id, q).then((s) => ({ env: e.name, id: e.id, total: s.total, verdicts: s.verdicts })))),
    [period, project.value?.id],
  );
  const fmt = (iso: string) =>
    new Intl.DateTimeFormat(
      lang.value,
      p.interval === "hour" ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" },
    ).format(new Date(iso));
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      <div class="toolbar">
        <Field label={m.period}>
          {(id) => (
            <select id={id} value={period} onChange={(e) => setPeriod(e.currentTarget.value as Period)}>
              {(Object.keys(PERIODS) as Period[]).map((k) => (
                <option key={k} value={k}>
                  {m.periods[k]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <h2>{m.byEnvironment}</h2>
      <Show of={perEnv}>
        {(rows) => (
          <div class="cards">
            {rows.map((r) => (
              <div key={r.id} class={r.id === environment.value?.id ? "stat current" : "stat"}>
                <span class="stat-label">{r.env}</span>
                <span class="stat-value">{r.total}</span>
                <span class="stat-sub">
                  {Object.entries(r.verdicts)
                    .map(([v, n]) => `${t.value.verdicts[v] ?? v} ${n}`)
                    .join(" · ")}
                </span>
              </div>
            ))}
          </div>
        )}
      </Show>
      <Show of={stats}>
        {(s) => (
          <>
            <h2>{m.overTime}</h2>
            <VerdictBars buckets={s.buckets} label={m.chartLabel(s.total)} format={fmt} />
            <div class="columns">
              <div>
                <h2>{m.topReasons}</h2>
                <CountBars label={m.topReasons} rows={s.top_reasons.map((r) => ({ key: r.reason, count: r.count }))} />
              </div>
              <div>
                <h2>{m.challenges}</h2>
                <CountBars label={m.challenges} rows={Object.entries(s.challenges.statuses).map(([key, count]) => ({ key, count }))} />
              </div>
            </div>
            <h2>{m.byAction}</h2>
            <Table headers={[m.action, m.count, t.value.evaluations.verdict]}>
              {s.actions.map((a) => (
                <tr key={a.action}>
                  <td dir="ltr">{a.action}</td>
                  <td>{a.total}</td>
                  <td>
                    {Object.entries(a.verdicts).map(([v, n]) => (
                      <span key={v} class="pair">
                        <Verdict v={v} /> {n}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </Table>
          </>
        )}
      </Show>
    </section>
  );
}
