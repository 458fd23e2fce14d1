// Evaluations (docs/console.md): search by user, email, device, IP, verdict, action and time; newest first, page by page.
// While a search runs it says so; a search that failed says why and offers to try again, never "no evaluation matches".
import type { Evaluation, EvaluationPage } from "@tessera/sdk/contract";
import { VERDICTS } from "@tessera/sdk/contract";
import { useEffect, useState } from "preact/hooks";
import { ApiError, get, query } from "../api.js";
import { t } from "../i18n/index.js";
import { go, route } from "../state.js";
import { act, Code, explain, Field, fieldError, Link, LoadError, Table, Title, Verdict, when } from "../ui.js";

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
  // The first page's state: loading (rows null, no error), failed (why), or loaded (rows).
  const [failure, setFailure] = useState<string | null>(null);
  const filters = () => query({ ...form, from: toIso(form.from ?? ""), to: toIso(form.to ?? ""), limit: 25 });
  const fetchPage = (cursor?: string) =>
    // `limit` is always set, so the query string is never empty.
    get<EvaluationPage>(`/v3/evaluations${filters()}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
  const search = async () => {
    setRows(null);
    setFailure(null);
    fieldError.value = null;
    try {
      const page = await fetchPage();
      setRows(page.data);
      setNext(page.next_cursor);
    } catch (err) {
      setFailure(explain(err, m.failed));
      // A filter the server refused (a malformed IP, a date) is marked where it was typed.
      if (err instanceof ApiError && err.param) fieldError.value = { param: err.param, message: err.message };
    }
  };
  const more = (cursor: string) =>
    act(
      async () => {
        const page = await fetchPage(cursor);
        setRows([...(rows ?? []), ...page.data]);
        setNext(page.next_cursor);
      },
      undefined,
      t.value.failed.more,
    );
  // The first page once; the form loads the next ones.
  useEffect(() => {
    void search();
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
          if (location.hash === `#/${next}`) void search();
          else go(next);
        }}
      >
        {FILTERS.map((k) => (
          <Field key={k} label={m[k]} name={k}>
            {(id, state) => <input id={id} name={k} dir="ltr" value={form[k] ?? ""} onInput={set(k)} {...state} />}
          </Field>
        ))}
        <Field label={m.verdict} name="verdict">
          {(id, state) => (
            <select id={id} value={form.verdict ?? ""} onChange={set("verdict")} {...state}>
              <option value="">{m.any}</option>
              {VERDICTS.map((v) => (
                <option key={v} value={v}>
                  {t.value.verdicts[v]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={m.from} name="from">
          {(id, state) => <input id={id} type="datetime-local" value={form.from ?? ""} onInput={set("from")} {...state} />}
        </Field>
        <Field label={m.to} name="to">
          {(id, state) => <input id={id} type="datetime-local" value={form.to ?? ""} onInput={set("to")} {...state} />}
        </Field>
        <button type="submit" class="primary">
          {t.value.search}
        </button>
      </form>
      {failure ? (
        <LoadError text={failure} retry={() => void search()} />
      ) : rows === null ? (
        <p aria-busy="true">{m.loading}</p>
      ) : (
        <EvaluationRows rows={rows} />
      )}
      {rows && next && (
        <button type="button" class="secondary" onClick={() => void more(next)}>
          {t.value.more}
        </button>
      )}
    </section>
  );
}
