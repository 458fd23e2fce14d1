// The overview's charts, drawn as plain SVG: stacked bars of verdicts over time and horizontal bars of counts.
// No chart library: the smallest we looked at would have cost a third of the console's 60 KB first-load budget for
// two chart shapes that take a few dozen lines here; SVG attributes (not inline styles) keep the strict CSP happy.
import { t } from "./i18n/index.js";

export const VERDICT_ORDER = ["allow", "restrict", "challenge", "challenge_and_restrict", "deny"];

export interface Bucket {
  start: string;
  total: number;
  verdicts: Record<string, number>;
}

const W = 720;
const H = 220;
const PAD = { top: 10, bottom: 28, left: 44, right: 8 };

function nice(max: number): number {
  if (max <= 5) return 5;
  const p = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / p) * p;
}

/** Verdicts per bucket, stacked; `label` is the chart's accessible name. */
export function VerdictBars({ buckets, label, format }: { buckets: Bucket[]; label: string; format: (iso: string) => string }) {
  const top = nice(Math.max(1, ...buckets.map((b) => b.total)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const bw = plotW / Math.max(1, buckets.length);
  const y = (n: number) => PAD.top + plotH - (n / top) * plotH;
  const every = Math.ceil(buckets.length / 8);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} dir="ltr">
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y(top * f)} y2={y(top * f)} />
            <text class="axis" x={PAD.left - 6} y={y(top * f) + 4} text-anchor="end">
              {Math.round(top * f)}
            </text>
          </g>
        ))}
        {buckets.map((b, i) => {
          let acc = 0;
          return (
            <g key={b.start}>
              {VERDICT_ORDER.filter((v) => b.verdicts[v]).map((v) => {
                const n = b.verdicts[v] ?? 0;
                const rect = (
                  <rect class={`v-${v}`} x={PAD.left + i * bw + bw * 0.1} width={bw * 0.8} y={y(acc + n)} height={y(acc) - y(acc + n)}>
                    <title>{`${format(b.start)}: ${n} ${t.value.verdicts[v] ?? v}`}</title>
                  </rect>
                );
                acc += n;
                return rect;
              })}
              {i % every === 0 && (
                <text class="axis" x={PAD.left + i * bw + bw / 2} y={H - 8} text-anchor="middle">
                  {format(b.start)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {VERDICT_ORDER.map((v) => (
          <span key={v}>
            <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
              <rect class={`v-${v}`} width="10" height="10" />
            </svg>
            {t.value.verdicts[v] ?? v}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Horizontal bars: a labelled list whose bar lengths are drawn, the numbers written out. */
export function CountBars({ rows, label }: { rows: { key: string; count: number }[]; label: string }) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  if (rows.length === 0) return <p>{t.value.none}</p>;
  return (
    <ul class="bars" aria-label={label}>
      {rows.map((r) => (
        <li key={r.key}>
          <span class="bar-label" dir="ltr">
            {r.key}
          </span>
          <svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect x="0" y="0" height="10" width={Math.max(1, (r.count / max) * 100)} />
          </svg>
          <span class="bar-count">{r.count}</span>
        </li>
      ))}
    </ul>
  );
}
