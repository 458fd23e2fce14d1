// A user's timeline (docs/console.md): profile, metadata and groups, devices (told apart by their last place and address;
// detach one), latest evaluations and challenges, the lists holding the user; erase the user (privacy law). Opened from
// the Users screen (users.tsx) or from an evaluation.
import type { Device, UserDetail } from "@tessera/sdk/contract";
import { del, get, post } from "../api.js";
import { t } from "../i18n/index.js";
import { can, go } from "../state.js";
import { act, Code, Link, Show, sayAcross, Table, Title, useData, when } from "../ui.js";
import { EvaluationRows } from "./evaluations.js";

/** "Chrome 142 / Windows 10": what the user agent said, versions included (two alike devices often differ there). */
const software = (d: Device) =>
  [
    [d.info.browser, d.info.browser_version?.split(".")[0]].filter(Boolean).join(" "),
    [d.info.os, d.info.os_version].filter(Boolean).join(" "),
  ]
    .filter(Boolean)
    .join(" / ");

const place = (d: Device) => [d.last_location?.city, d.last_location?.country].filter(Boolean).join(", ");

function Devices({ u, reload }: { u: UserDetail; reload: () => void }) {
  const m = t.value.user;
  if (u.devices.length === 0) return <p>{t.value.none}</p>;
  return (
    <Table
      headers={[t.value.evaluation.device, m.type, m.browser, m.status, m.lastSeen, m.place, m.address, m.added, can("owner") && m.detach]}
    >
      {u.devices.map((d) => (
        <tr key={d.id}>
          <td>
            <Link to={`evaluations?device=${encodeURIComponent(d.id)}`}>
              <Code>{d.id}</Code>
            </Link>
          </td>
          <td>{d.type}</td>
          <td dir="ltr">{software(d)}</td>
          <td>{d.status}</td>
          <td>{when(d.last_seen_at)}</td>
          <td>{place(d)}</td>
          <td dir="ltr">{d.last_ip ?? ""}</td>
          <td>{when(d.createdAt)}</td>
          {can("owner") && (
            <td>
              {d.status === "attached" && (
                <button
                  type="button"
                  class="secondary"
                  aria-label={`${m.detach} ${d.id}`}
                  onClick={() => void act(() => post(`/v3/devices/${d.id}/detach`), t.value.saved, t.value.failed.detach).then(reload)}
                >
                  {m.detach}
                </button>
              )}
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

export function UserTimeline({ id }: { id: string }) {
  const m = t.value.user;
  const user = useData(() => get<UserDetail>(`/v3/users/${encodeURIComponent(id)}`), [id]);
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title(id)}</Title>
      <p>
        <Link to="users">{t.value.users.title}</Link>
      </p>
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
              <dt>{t.value.users.firstSeen}</dt>
              <dd>{when(u.createdAt)}</dd>
              <dt>{m.groups}</dt>
              <dd>{u.groups.length ? <Code>{u.groups.map((g) => g.name ?? g.id).join(", ")}</Code> : "—"}</dd>
              {Object.entries(u.metadata).map(([k, v]) => (
                <div class="fact" key={k}>
                  <dt>
                    {m.metadata}: <Code>{k}</Code>
                  </dt>
                  <dd>
                    <Code>{typeof v === "string" ? v : JSON.stringify(v)}</Code>
                  </dd>
                </div>
              ))}
            </dl>
            <h2>{m.devices}</h2>
            <Devices u={u} reload={user.reload} />
            <h2>{m.evaluations}</h2>
            <EvaluationRows rows={u.evaluations} />
            <p>
              <Link to={`evaluations?user=${encodeURIComponent(u.id)}`}>{m.allEvaluations}</Link>
            </p>
            <h2>{m.challenges}</h2>
            {u.challenges.length ? (
              <Table headers={[m.created, m.challengeType, m.challengeStatus, t.value.evaluation.title]}>
                {u.challenges.map((c) => (
                  <tr key={c.id}>
                    <td>{when(c.createdAt)}</td>
                    <td>
                      <Code>{c.type ?? ""}</Code>
                    </td>
                    <td>
                      <Code>{c.status}</Code>
                    </td>
                    <td>
                      {c.evaluation ? (
                        <Link to={`evaluations/${encodeURIComponent(c.evaluation)}`}>
                          <Code>{c.evaluation}</Code>
                        </Link>
                      ) : (
                        ""
                      )}
                    </td>
                  </tr>
                ))}
              </Table>
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
                  if (!confirm(m.eraseConfirm)) return;
                  void act(() => del(`/v3/user/${encodeURIComponent(u.id)}`), undefined, t.value.failed.erase).then((ok) => {
                    if (!ok) return;
                    sayAcross(m.erased);
                    go("users");
                  });
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
