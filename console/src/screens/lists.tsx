// Lists (docs/console.md): the environment's lists and their live entries; analysts add and remove values.
import type { ListSummary } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { get, post, query } from "../api.js";
import { t } from "../i18n/index.js";
import { can, go } from "../state.js";
import { act, Field, Link, Show, Table, Title, useData, when } from "../ui.js";

interface Entries {
  id: string;
  data: { value: string; comment?: string; expires_at?: string; createdAt: string }[];
  total: number;
}

export function Lists({ id }: { id?: string }) {
  const m = t.value.lists;
  const lists = useData(() => get<{ data: ListSummary[] }>("/v3/lists"), []);
  const entries = useData(
    () => (id ? get<Entries>(`/v3/lists/${encodeURIComponent(id)}${query({ limit: 100 })}`) : Promise.resolve(null)),
    [id],
  );
  const [listId, setListId] = useState(id ?? "");
  const [values, setValues] = useState("");
  const [comment, setComment] = useState("");
  const [ttl, setTtl] = useState("");
  const reload = () => {
    lists.reload();
    entries.reload();
  };
  return (
    <section aria-labelledby="screen-title">
      <Title>{id ? `${m.list} ${id}` : m.title}</Title>
      <Show of={lists}>
        {({ data }) =>
          data.length ? (
            <Table headers={[m.list, m.entries, m.updated]}>
              {data.map((l) => (
                <tr key={l.id}>
                  <td>
                    <Link to={`lists/${encodeURIComponent(l.id)}`}>{l.id}</Link>
                  </td>
                  <td>{l.entries}</td>
                  <td>{when(l.updatedAt)}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <p>{t.value.none}</p>
          )
        }
      </Show>
      {id && (
        <Show of={entries}>
          {(e) =>
            e && (
              <>
                <h2>
                  {m.entries} ({e.total})
                </h2>
                <Table headers={[m.value, m.comment, m.expires, can("analyst") && t.value.remove]}>
                  {e.data.map((x) => (
                    <tr key={x.value}>
                      <td dir="ltr">{x.value}</td>
                      <td>{x.comment ?? ""}</td>
                      <td>{when(x.expires_at)}</td>
                      {can("analyst") && (
                        <td>
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`${t.value.remove} ${x.value}`}
                            onClick={() =>
                              void act(
                                () => post(`/v3/lists/${encodeURIComponent(id)}/remove`, { values: [x.value] }),
                                t.value.saved,
                                t.value.failed.removeValue,
                              ).then(reload)
                            }
                          >
                            {t.value.remove}
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </Table>
              </>
            )
          }
        </Show>
      )}
      {can("analyst") && (
        <form
          class="panel"
          onSubmit={(e) => {
            e.preventDefault();
            const target = listId.trim();
            void act(
              () =>
                post(`/v3/lists/${encodeURIComponent(target)}/add`, {
                  values: values
                    .split("\n")
                    .map((v) => v.trim())
                    .filter(Boolean),
                  ...(comment ? { comment } : {}),
                  ...(ttl ? { ttl: Number(ttl) } : {}),
                }),
              t.value.saved,
              t.value.failed.addValues,
            ).then((ok) => {
              if (!ok) return;
              setValues("");
              if (target !== id) go(`lists/${encodeURIComponent(target)}`);
              else reload();
            });
          }}
        >
          <h2>{m.addTitle}</h2>
          <div class="grid">
            <Field label={m.listId} name="id">
              {(fid, state) => (
                <input id={fid} dir="ltr" required value={listId} onInput={(e) => setListId(e.currentTarget.value)} {...state} />
              )}
            </Field>
            <Field label={m.comment} name="comment">
              {(fid, state) => <input id={fid} value={comment} onInput={(e) => setComment(e.currentTarget.value)} {...state} />}
            </Field>
            <Field label={m.ttl} name="ttl">
              {(fid, state) => (
                <input id={fid} type="number" min={1} value={ttl} onInput={(e) => setTtl(e.currentTarget.value)} {...state} />
              )}
            </Field>
          </div>
          <Field label={m.values} name="values">
            {(fid, state) => (
              <textarea id={fid} dir="ltr" rows={4} required value={values} onInput={(e) => setValues(e.currentTarget.value)} {...state} />
            )}
          </Field>
          <button type="submit" class="primary">
            {t.value.add}
          </button>
        </form>
      )}
    </section>
  );
}
