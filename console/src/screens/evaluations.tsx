// Evaluations (SPEC.md 14): search by user, email, device, IP, verdict, action and time; newest first, page by page.
import type { Evaluation, EvaluationPage } from "@tessera/sdk/contract";
import { VERDICTS } from "@tessera/sdk/contract";
import { useEffect, useState } from "preact/hooks";
import { get, query } from "../api.js";
import { t } from "../i18n/index.js";
import { go, route } from "../state.js";
import { act, Code, Field, Link, Table, Title, Verdict, when } from "../ui.js";

const FILTERS = ["user", "email", "device", "ip", "action"] as const;

/** datetime-local (the browser's time zone) → ISO 8601. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function EvaluationRows({ rows }: { rows: Evaluation[] }) {
  const m = t.value.evaluations;
  if (rows.length === 0) return <p>{m.none}</p>;
  return (
    <Table headers={[m.time, m.action, m.verdict, m.user, m.ip, m.reasons]}>
      {rows.map((e) => (
        <tr key={e.id}>
          <td>
            <Link to={`evaluations/${e.id}`}>{when(e.createdAt)}</Link>
          </td>
          <td dir="ltr">{e.action}</td>
          <td>
            <Verdict v={e.verdict} />
          </td>
          <td>
            {e.user ? (
              <Link to={`users/${encodeURIComponent(e.user.id ?? e.user.service_id)}`}>
                {e.user.id ?? e.user.email ?? e.user.service_id}
              </Link>
            ) : (
              ""
            )}
          </td>
          <td dir="ltr">{e.geolocation?.ip ?? ""}</td>
          <td>{e.reasons.length ? <Code>{e.reasons.join(", ")}</Code> : ""}</td>
        </tr>
      ))}
    </Table>
  );
}

export function Evaluations() {
  const m = t.value.evaluations;
  const params = route.value.params;
  const [form, setForm] = useState<Record<string, string>>(() => Object.fromEntries([...params.entries()]));
  const [rows, setRows] = useState<Evaluation[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const filters = () => query({ ...form, from: toIso(form.from ?? ""), to: toIso(form.to ?? ""), limit: 25 });
  const load = async (cursor?: string) => {
    // `limit` is always set, so the query string is never empty.
    const page = await get<EvaluationPage>(`/v3/evaluations${filters()}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    setRows(cursor ? [...(rows ?? []), ...page.data] : page.data);
    setNext(page.next_cursor);
  };
  // The first page once; the form loads the next ones.
  useEffect(() => {
    void act(() => load()).then((ok) => ok || setRows([]));
  }, []);
  const set = (k: string) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value });
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      <form
        class="filters"
        aria-label={m.filters}
        onSubmit={(e) => {
          e.preventDefault();
          // The filters go into the address (a search can be shared and reloaded); the new address mounts a fresh
          // search, unless it is the same one, which is run again here.
          const q = new URLSearchParams(Object.entries(form).filter(([, v]) => v));
          const next = `evaluations${q.size ? `?${q}` : ""}`;
          if (location.hash === `#/${next}`) void act(() => load());
          else go(next);
        }}
      >
        {FILTERS.map((k) => (
          <Field key={k} label={m[k]}>
            {(id) => <input id={id} name={k} dir="ltr" value={form[k] ?? ""} onInput={set(k)} />}
          </Field>
        ))}
        <Field label={m.verdict}>
          {(id) => (
            <select id={id} value={form.verdict ?? ""} onChange={set("verdict")}>
              <option value="">{m.any}</option>
              {VERDICTS.map((v) => (
                <option key={v} value={v}>
                  {t.value.verdicts[v]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={m.from}>{(id) => <input id={id} type="datetime-local" value={form.from ?? ""} onInput={set("from")} />}</Field>
        <Field label={m.to}>{(id) => <input id={id} type="datetime-local" value={form.to ?? ""} onInput={set("to")} />}</Field>
        <button type="submit" class="primary">
          {t.value.search}
        </button>
      </form>
      {rows && <EvaluationRows rows={rows} />}
      {next && (
        <button type="button" class="secondary" onClick={() => void act(() => load(next))}>
          {t.value.more}
        </button>
      )}
    </section>
  );
}
