// Policies (docs/console.md): the environment's policies, highest priority first; enable or disable in place.
import type { Policy } from "@tessera/sdk/contract";
import { useEffect, useState } from "preact/hooks";
import { get, patch } from "../api.js";
import { t } from "../i18n/index.js";
import { can, go } from "../state.js";
import { act, Code, Link, Show, Table, Title, useData, Verdict } from "../ui.js";

export function Policies() {
  const m = t.value.policies;
  const list = useData(() => get<{ data: Policy[] }>("/v3/policies"), []);
  // A switch shows what was asked until the list is loaded again after the change is saved: a load landing meanwhile
  // (the screen's first one, or a reload after another switch) must not flip it back.
  const [asked, setAsked] = useState<Record<string, { enabled: boolean; saved: boolean }>>({});
  const drop = (keep: (v: { saved: boolean }, id: string) => boolean) =>
    setAsked((a) => Object.fromEntries(Object.entries(a).filter(([id, v]) => keep(v, id))));
  useEffect(() => drop((v) => !v.saved), [list.data]);
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      {can("owner") && (
        <button type="button" class="primary" onClick={() => go("policies/new")}>
          {m.create}
        </button>
      )}
      <Show of={list}>
        {({ data }) => (
          <Table headers={[m.name, m.actions, m.priority, m.verdict, m.enabled]}>
            {data.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link to={`policies/${p.id}`}>{p.name}</Link>
                </td>
                <td>{p.actions.length ? <Code>{p.actions.join(", ")}</Code> : m.allActions}</td>
                <td>{p.priority}</td>
                <td>
                  <Verdict v={p.verdict} />
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${m.enabled}: ${p.name}`}
                    checked={asked[p.id]?.enabled ?? p.enabled}
                    disabled={!can("owner")}
                    onChange={(e) => {
                      const enabled = e.currentTarget.checked;
                      setAsked((a) => ({ ...a, [p.id]: { enabled, saved: false } }));
                      void act(() => patch(`/v3/policies/${p.id}`, { enabled }), t.value.saved, t.value.failed.enable).then((ok) => {
                        if (ok) setAsked((a) => ({ ...a, [p.id]: { enabled, saved: true } }));
                        else drop((_, id) => id !== p.id);
                        list.reload();
                      });
                    }}
                  />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Show>
    </section>
  );
}
