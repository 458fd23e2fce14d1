// Users (docs/console.md): find a user by id, email or phone (GET /v3/users?query=), newest first without a query; each
// opens the user's timeline (user.tsx), where the devices, evaluations, challenges and lists are, and the erasure.
import type { UserSummary } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { get, query } from "../api.js";
import { t } from "../i18n/index.js";
import { go, route } from "../state.js";
import { Field, Link, Show, Table, Title, useData, when } from "../ui.js";

/** The users page shows this many: a search narrows it, it does not page through the directory. */
const LIMIT = 50;

export function Users() {
  const m = t.value.users;
  const q = route.value.params.get("query") ?? "";
  const [text, setText] = useState(q);
  const users = useData(() => get<{ data: UserSummary[] }>(`/v3/users${query({ query: q, limit: LIMIT })}`), [q]);
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      <form
        class="filters"
        aria-label={m.find}
        onSubmit={(e) => {
          e.preventDefault();
          // The search goes into the address: it can be shared and reloaded, and Back returns to it from a user.
          const next = text.trim() ? `users?query=${encodeURIComponent(text.trim())}` : "users";
          if (location.hash === `#/${next}`) users.reload();
          else go(next);
        }}
      >
        <Field label={m.query} hint={m.queryHelp} name="query">
          {(id, state) => <input id={id} type="search" dir="ltr" value={text} onInput={(e) => setText(e.currentTarget.value)} {...state} />}
        </Field>
        <button type="submit" class="primary">
          {t.value.search}
        </button>
      </form>
      <h2>{q ? m.matching(q) : m.newest}</h2>
      <Show of={users}>
        {({ data }) =>
          data.length === 0 ? (
            <p>{m.none}</p>
          ) : (
            <Table headers={[m.id, m.email, m.phone, m.firstSeen]}>
              {data.map((u) => (
                <tr key={u.service_id}>
                  <td>
                    <Link to={`users/${encodeURIComponent(u.id)}`}>
                      <bdi dir="ltr">{u.id}</bdi>
                    </Link>
                  </td>
                  <td dir="ltr">{u.email ?? ""}</td>
                  <td dir="ltr">{u.phone ?? ""}</td>
                  <td>{when(u.createdAt)}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Show>
    </section>
  );
}
