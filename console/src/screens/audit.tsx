// The audit log (docs/console.md): who changed what and when, and, field by field, what the change did (before → after;
// diff.ts), with both objects as JSON behind it for the rare case that needs them whole.
import type { AuditEntry } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { get, query } from "../api.js";
import { fieldDiff, shown } from "../diff.js";
import { t } from "../i18n/index.js";
import { act, Code, Json, Show, Table, Title, useData, when } from "../ui.js";

/** The fields an entry's change touched, as rows: field, before, after. */
function Changes({ entry }: { entry: AuditEntry }) {
  const m = t.value.audit;
  const changes = fieldDiff(entry.before, entry.after);
  if (changes.length === 0) return <p>{m.nothing}</p>;
  return (
    <table class="diff">
      <caption class="visually-hidden">{m.changes}</caption>
      <thead>
        <tr>
          <th scope="col">{m.field}</th>
          <th scope="col">{m.before}</th>
          <th scope="col">{m.after}</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.path} class={`diff-${c.kind}`}>
            <th scope="row">
              <Code>{c.path || "—"}</Code>
            </th>
            <td class="diff-before">{c.kind === "added" ? <span class="absent">{m.absent}</span> : <Code>{shown(c.before)}</Code>}</td>
            <td class="diff-after">{c.kind === "removed" ? <span class="absent">{m.absent}</span> : <Code>{shown(c.after)}</Code>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Audit() {
  const m = t.value.audit;
  const first = useData(() => get<{ data: AuditEntry[]; next_cursor: string | null }>(`/v3/audit-log${query({ limit: 50 })}`), []);
  const [more, setMore] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const next = cursor === undefined ? first.data?.next_cursor : cursor;
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      <Show of={first}>
        {({ data }) => {
          const rows = [...data, ...more];
          return rows.length ? (
            <Table headers={[m.time, m.actor, m.action, m.target, m.status, m.changes]}>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>{when(e.createdAt)}</td>
                  <td dir="ltr">{e.actor.label}</td>
                  <td>
                    <Code>{e.action}</Code>
                  </td>
                  <td>{e.target?.id ? <Code>{e.target.id}</Code> : ""}</td>
                  <td>{e.status ?? m.unknown}</td>
                  <td>
                    {(e.before !== undefined || e.after !== undefined) && (
                      <>
                        <Changes entry={e} />
                        <details>
                          <summary>{m.raw}</summary>
                          {e.before !== undefined && <Json value={e.before} label={m.before} />}
                          {e.after !== undefined && <Json value={e.after} label={m.after} />}
                        </details>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          ) : (
            <p>{t.value.none}</p>
          );
        }}
      </Show>
      {next && (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void act(
              async () => {
                const page = await get<{ data: AuditEntry[]; next_cursor: string | null }>(
                  `/v3/audit-log${query({ limit: 50, cursor: next })}`,
                );
                setMore([...more, ...page.data]);
                setCursor(page.next_cursor);
              },
              undefined,
              t.value.failed.more,
            )
          }
        >
          {t.value.more}
        </button>
      )}
    </section>
  );
}
