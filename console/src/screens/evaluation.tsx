// One evaluation (docs/console.md): reasons, risks and indicators, the checks snapshot (every check the server recorded,
// whatever their names), the matched policy, geolocation, the challenge, the user and device.
import type { Evaluation } from "@tessera/sdk/contract";
import { get } from "../api.js";
import { t } from "../i18n/index.js";
import { Code, Json, Link, Show, Table, Title, useData, Verdict, when } from "../ui.js";

function value(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.length ? v.join(", ") : "[]";
  return String(v);
}

export function EvaluationDetail({ id }: { id: string }) {
  const m = t.value.evaluation;
  const ev = useData(() => get<Evaluation>(`/v3/evaluations/${encodeURIComponent(id)}`), [id]);
  return (
    <section aria-labelledby="screen-title">
      <Title>
        {m.title} <Code>{id}</Code>
      </Title>
      <Show of={ev}>
        {(e) => (
          <>
            <dl class="facts">
              <dt>{t.value.evaluations.time}</dt>
              <dd>{when(e.createdAt)}</dd>
              <dt>{t.value.evaluations.action}</dt>
              <dd dir="ltr">{e.action}</dd>
              <dt>{t.value.evaluations.verdict}</dt>
              <dd>
                <Verdict v={e.verdict} />
              </dd>
              <dt>{m.user}</dt>
              <dd>
                {e.user ? (
                  <Link to={`users/${encodeURIComponent(e.user.id ?? e.user.service_id)}`}>
                    {e.user.id ?? e.user.service_id}
                    {e.user.email ? ` (${e.user.email})` : ""}
                  </Link>
                ) : (
                  "—"
                )}
              </dd>
              <dt>{m.device}</dt>
              <dd>{e.device ? <Link to={`evaluations?device=${encodeURIComponent(e.device)}`}>{e.device}</Link> : "—"}</dd>
              <dt>{m.fingerprint}</dt>
              <dd>{e.fingerprint ? <Code>{`${e.fingerprint.id} (${m.confidence} ${e.fingerprint.confidence})`}</Code> : "—"}</dd>
              <dt>{m.policy}</dt>
              <dd>{e.policy ? <Link to={`policies/${e.policy.id}`}>{e.policy.name}</Link> : m.noPolicy}</dd>
              <dt>{m.reasons}</dt>
              <dd>{e.reasons.length ? <Code>{e.reasons.join(", ")}</Code> : "—"}</dd>
              <dt>{m.challenge}</dt>
              <dd>
                {e.challenge ? (
                  <Code>{`${e.challenge.id} · ${e.challenge.status}${e.challenge.type ? ` · ${e.challenge.type}` : ""}`}</Code>
                ) : (
                  "—"
                )}
              </dd>
              <dt>{m.consumed}</dt>
              <dd>{e.consumed ? `${t.value.yes} ${when(e.consumed_at)}` : t.value.no}</dd>
            </dl>
            <h2>{m.risks}</h2>
            <Table headers={[m.risk, m.severity, m.score, m.indicators]}>
              {(e.risks ?? []).map((r) => (
                <tr key={r.id}>
                  <td dir="ltr">{r.name}</td>
                  <td>
                    <span class={`badge s-${r.severity}`}>{r.severity}</span>
                  </td>
                  <td>{r.score}</td>
                  <td>{r.indicators.length ? <Code>{r.indicators.join(", ")}</Code> : "—"}</td>
                </tr>
              ))}
            </Table>
            <h2>{m.geo}</h2>
            {e.geolocation ? (
              <dl class="facts">
                <dt>IP</dt>
                <dd dir="ltr">{e.geolocation.ip}</dd>
                <dt>{m.geo}</dt>
                <dd>{[e.geolocation.city, e.geolocation.region, e.geolocation.country].filter(Boolean).join(", ") || "—"}</dd>
                <dt>{m.network}</dt>
                <dd dir="ltr">
                  {[
                    e.geolocation.as_org,
                    ...Object.entries(e.geolocation.security)
                      .filter(([, on]) => on)
                      .map(([k]) => k),
                  ]
                    .filter(Boolean)
                    .join(" · ") || "—"}
                </dd>
              </dl>
            ) : (
              <p>—</p>
            )}
            <h2>{m.checks}</h2>
            <Table headers={[m.check, m.value]} class="checks">
              {Object.entries(e.checks ?? {}).map(([k, v]) => (
                <tr key={k}>
                  <td dir="ltr">{k}</td>
                  <td dir="ltr">{value(v)}</td>
                </tr>
              ))}
            </Table>
            {e.metadata && (
              <>
                <h2>{m.metadata}</h2>
                <Json value={e.metadata} label={m.metadata} />
              </>
            )}
          </>
        )}
      </Show>
    </section>
  );
}
