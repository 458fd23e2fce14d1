// A user's timeline (SPEC.md 14): profile, devices (detach one), latest evaluations and challenges, the lists holding
// the user; erase the user (privacy law).
import type { UserDetail } from "@tessera/sdk/contract";
import { del, get, post } from "../api.js";
import { t } from "../i18n/index.js";
import { can, go } from "../state.js";
import { act, Code, Link, Show, Table, Title, useData, when } from "../ui.js";
import { EvaluationRows } from "./evaluations.js";

export function UserTimeline({ id }: { id: string }) {
  const m = t.value.user;
  const user = useData(() => get<UserDetail>(`/v3/users/${encodeURIComponent(id)}`), [id]);
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title(id)}</Title>
      <Show of={user}>
        {(u) => (
          <>
            <dl class="facts">
              <dt>service_id</dt>
              <dd>
                <Code>{u.service_id}</Code>
              </dd>
              <dt>{t.value.evaluations.email}</dt>
              <dd dir="ltr">{u.email ? `${u.email}${u.email_verified ? ` (${m.verified})` : ""}` : "—"}</dd>
              <dt>{m.phone}</dt>
              <dd dir="ltr">{u.phone ? `${u.phone}${u.phone_verified ? ` (${m.verified})` : ""}` : "—"}</dd>
              <dt>{t.value.challenges.created}</dt>
              <dd>{when(u.createdAt)}</dd>
            </dl>
            <h2>{m.devices}</h2>
            {u.devices.length === 0 ? (
              <p>{t.value.none}</p>
            ) : (
              <Table headers={[t.value.evaluation.device, m.type, m.browser, m.status, m.lastSeen, can("owner") && m.detach]}>
                {u.devices.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <Link to={`evaluations?device=${encodeURIComponent(d.id)}`}>{d.id}</Link>
                    </td>
                    <td>{d.type}</td>
                    <td dir="ltr">{[d.info.browser, d.info.os].filter(Boolean).join(" / ")}</td>
                    <td>{d.status}</td>
                    <td>{when(d.last_seen_at)}</td>
                    {can("owner") && (
                      <td>
                        {d.status === "attached" && (
                          <button
                            type="button"
                            class="secondary"
                            onClick={() => void act(() => post(`/v3/devices/${d.id}/detach`), t.value.saved).then(user.reload)}
                          >
                            {m.detach}
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </Table>
            )}
            <h2>{m.evaluations}</h2>
            <EvaluationRows rows={u.evaluations} />
            <p>
              <Link to={`evaluations?user=${encodeURIComponent(u.id)}`}>{m.allEvaluations}</Link>
            </p>
            <h2>{m.challenges}</h2>
            {u.challenges.length ? (
              <ul>
                {u.challenges.map((c) => (
                  <li key={c.id}>
                    {when(c.createdAt)} · <Code>{`${c.type ?? ""} ${c.status}`}</Code>
                  </li>
                ))}
              </ul>
            ) : (
              <p>{t.value.none}</p>
            )}
            <h2>{m.lists}</h2>
            {u.lists.length ? (
              <ul>
                {u.lists.map((l) => (
                  <li key={l.list + l.value}>
                    <Link to={`lists/${encodeURIComponent(l.list)}`}>{l.list}</Link> · <Code>{`${l.check} = ${l.value}`}</Code>
                  </li>
                ))}
              </ul>
            ) : (
              <p>{t.value.none}</p>
            )}
            {can("owner") && (
              <button
                type="button"
                class="danger"
                onClick={() => {
                  if (confirm(m.eraseConfirm))
                    void act(() => del(`/v3/user/${encodeURIComponent(u.id)}`), m.erased).then((ok) => ok && go("evaluations"));
                }}
              >
                {m.erase}
              </button>
            )}
          </>
        )}
      </Show>
    </section>
  );
}
