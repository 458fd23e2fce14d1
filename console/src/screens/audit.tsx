// The audit log (SPEC.md 14): who changed what and when, with the object before and after.
import type { AuditEntry } from "@tessera/sdk/contract";
import { useState } from "preact/hooks";
import { get, query } from "../api.js";
import { t } from "../i18n/index.js";
import { act, Code, Json, Show, Table, Title, useData, when } from "../ui.js";

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
            <Table headers={[m.time, m.actor, m.action, m.target, m.status, m.details]}>
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
                      <details>
                        <summary>{m.details}</summary>
                        {e.before !== undefined && <Json value={e.before} label={m.before} />}
                        {e.after !== undefined && <Json value={e.after} label={m.after} />}
                      </details>
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
            void act(async () => {
              const page = await get<{ data: AuditEntry[]; next_cursor: string | null }>(
                `/v3/audit-log${query({ limit: 50, cursor: next })}`,
              );
              setMore([...more, ...page.data]);
              setCursor(page.next_cursor);
            })
          }
        >
          {t.value.more}
        </button>
      )}
    </section>
  );
}
