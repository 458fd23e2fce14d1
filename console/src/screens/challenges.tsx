// Challenges (docs/console.md): newest first, by status; an analyst resolves a pending one by hand (overridden).
import { CHALLENGE_STATUSES, type Challenge } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { get, post, query } from "../api.js";
import { t } from "../i18n/index.js";
import { can } from "../state.js";
import { act, Code, Field, Link, Show, Table, Title, useData, when } from "../ui.js";

const PENDING = new Set(["created", "presented", "code_sent", "verified"]);

export function Challenges() {
  const m = t.value.challenges;
  const [status, setStatus] = useState("");
  const list = useData(() => get<{ data: Challenge[]; total: number }>(`/v3/challenges${query({ status, limit: 50 })}`), [status]);
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      <div class="toolbar">
        <Field label={m.status}>
          {(id) => (
            <select id={id} value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">{t.value.evaluations.any}</option>
              {CHALLENGE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Show of={list}>
        {({ data }) =>
          data.length ? (
            <Table headers={[m.created, m.type, m.status, m.user, t.value.evaluation.title, can("analyst") && m.override]}>
              {data.map((c) => (
                <tr key={c.id}>
                  <td>{when(c.createdAt)}</td>
                  <td dir="ltr">{c.type ?? ""}</td>
                  <td>
                    <Code>{c.status}</Code>
                  </td>
                  <td>
                    {c.user ? (
                      <Link to={`users/${encodeURIComponent(c.user.id ?? c.user.service_id)}`}>
                        {c.user.id ?? c.user.email ?? c.user.service_id}
                      </Link>
                    ) : (
                      ""
                    )}
                  </td>
                  <td>{c.evaluation ? <Link to={`evaluations/${c.evaluation}`}>{c.evaluation}</Link> : ""}</td>
                  {can("analyst") && (
                    <td>
                      {PENDING.has(c.status) && (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() =>
                            void act(() => post(`/v3/challenges/${c.id}/override`), m.overridden, t.value.failed.override).then(list.reload)
                          }
                        >
                          {m.override}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </Table>
          ) : (
            <p>{t.value.none}</p>
          )
        }
      </Show>
    </section>
  );
}
