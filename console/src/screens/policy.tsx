// A policy's editor (docs/console.md): its fields, the condition tree (as a tree or as JSON, validated live with the
// server's own rules), and a backtest of the draft over the stored evaluations before it is saved or enabled.
import {
  type BacktestResult,
  CHALLENGE_TYPES,
  type CHANNELS,
  type Condition,
  conditionProblem,
  type Policy,
  type PolicyCreateRequest,
  VERDICTS,
} from "@tessera/sdk/contract";
import { useEffect, useState } from "preact/hooks";
import { del, get, patch, post } from "../api.js";
import { t } from "../i18n/index.js";
import { can, go } from "../state.js";
import { act, Code, Field, Link, Table, Title, Verdict, when } from "../ui.js";
import { ConditionNode, newComparison } from "./tree.js";

type Draft = Omit<PolicyCreateRequest, "environment">;

const blank = (): Draft => ({
  name: "",
  enabled: false,
  actions: [],
  priority: 100,
  conditions: { all: [newComparison()] },
  verdict: "deny",
});

/** The editor edits groups: a bare comparison at the root becomes the only member of an `all` group (the same test). */
const asGroup = (c: Condition): Condition => ("check" in c ? { all: [c] } : c);

function BacktestPanel({ draft, id }: { draft: Draft; id?: string }) {
  const m = t.value.editor;
  const [days, setDays] = useState(7);
  const [result, setResult] = useState<BacktestResult | null>(null);
  const run = () =>
    act(async () => {
      setResult(
        await post<BacktestResult>("/v3/policies/backtest", {
          policy: { ...draft, ...(id ? { id } : {}) },
          from: new Date(Date.now() - days * 24 * 3600e3).toISOString(),
        }),
      );
    });
  return (
    <section class="panel" aria-labelledby="backtest-title">
      <h2 id="backtest-title">{m.backtestTitle}</h2>
      <p>{m.backtestHelp}</p>
      <div class="toolbar">
        <Field label={m.days}>
          {(fid) => (
            <input id={fid} type="number" min={1} max={400} value={days} onInput={(e) => setDays(Number(e.currentTarget.value) || 7)} />
          )}
        </Field>
        <button type="button" class="primary" id="run-backtest" onClick={() => void run()}>
          {m.run}
        </button>
      </div>
      {result && (
        <div id="backtest-result">
          {result.partial && (
            <p class="caveat" id="backtest-partial" role="status">
              {m.partial(result.evaluated, result.examined_from ? when(result.examined_from) : "")}
            </p>
          )}
          <dl class="facts">
            <dt>{m.evaluated}</dt>
            <dd>{result.evaluated}</dd>
            <dt>{m.matched}</dt>
            <dd>{result.matched}</dd>
            <dt>{m.changed}</dt>
            <dd id="backtest-changed">{result.changed}</dd>
          </dl>
          {result.transitions.length > 0 && (
            <ul>
              {result.transitions.map((x) => (
                <li key={x.from + x.to}>
                  <Verdict v={x.from} /> → <Verdict v={x.to} />: {x.count}
                </li>
              ))}
            </ul>
          )}
          {result.examples.length > 0 && (
            <>
              <h3>{m.examples}</h3>
              <Table
                headers={[
                  t.value.evaluations.time,
                  t.value.evaluations.user,
                  t.value.evaluations.action,
                  m.current,
                  m.draft,
                  t.value.evaluations.reasons,
                ]}
              >
                {result.examples.map((x) => (
                  <tr key={x.evaluation} class="backtest-example">
                    <td>
                      <Link to={`evaluations/${x.evaluation}`}>{when(x.createdAt)}</Link>
                    </td>
                    <td dir="ltr">{x.user ?? ""}</td>
                    <td dir="ltr">{x.action}</td>
                    <td>
                      <Verdict v={x.current} />
                    </td>
                    <td>
                      <Verdict v={x.draft} />
                    </td>
                    <td dir="ltr">{x.reasons.join(", ")}</td>
                  </tr>
                ))}
              </Table>
            </>
          )}
        </div>
      )}
    </section>
  );
}

export function PolicyEditor({ id }: { id: string }) {
  const m = t.value.editor;
  const pm = t.value.policies;
  const isNew = id === "new";
  const [draft, setDraft] = useState<Draft | null>(isNew ? blank() : null);
  const [view, setView] = useState<"tree" | "json">("tree");
  const [jsonText, setJsonText] = useState("");
  const [jsonError, setJsonError] = useState("");
  const [loadError, setLoadError] = useState("");
  useEffect(() => {
    if (isNew) return;
    get<Policy>(`/v3/policies/${encodeURIComponent(id)}`).then(
      ({ id: _i, environment: _e, createdAt: _c, updatedAt: _u, ...p }) => setDraft({ ...p, conditions: asGroup(p.conditions) }),
      (err) => setLoadError(String(err.message ?? err)),
    );
  }, [id, isNew]);
  if (loadError) return <p class="error">{t.value.error(loadError)}</p>;
  if (!draft) return <p aria-busy="true">{t.value.loading}</p>;

  const set = (p: Partial<Draft>) => setDraft({ ...draft, ...p });
  const problem = conditionProblem(draft.conditions);
  const readOnly = !can("owner");
  const isChallenge = draft.verdict === "challenge" || draft.verdict === "challenge_and_restrict";
  const save = () =>
    act(
      async () => {
        const body = {
          ...draft,
          ...(isChallenge ? { challenge: draft.challenge ?? { type: "account_takeover", channels: ["email"] } } : {}),
        };
        if (isNew) {
          const created = await post<Policy>("/v3/policies", body);
          go(`policies/${created.id}`);
        } else {
          const { challenge, ...rest } = body;
          // A challenge left on a policy that no longer challenges is ignored by the engine.
          await patch<Policy>(`/v3/policies/${id}`, { ...rest, ...(isChallenge ? { challenge } : {}) });
        }
      },
      isNew ? m.created : t.value.saved,
      t.value.failed.save,
    );

  return (
    <section aria-labelledby="screen-title">
      <Title>{isNew ? m.newTitle : m.title(draft.name)}</Title>
      <form
        class="policy"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset disabled={readOnly}>
          <div class="grid">
            <Field label={pm.name}>
              {(fid) => <input id={fid} required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />}
            </Field>
            <Field label={pm.priority}>
              {(fid) => (
                <input
                  id={fid}
                  type="number"
                  value={draft.priority}
                  onInput={(e) => set({ priority: Number(e.currentTarget.value) || 0 })}
                />
              )}
            </Field>
            <Field label={pm.actions} hint={pm.actionsHelp}>
              {(fid) => (
                <input
                  id={fid}
                  dir="ltr"
                  value={draft.actions.join(", ")}
                  onInput={(e) =>
                    set({
                      actions: e.currentTarget.value
                        .split(",")
                        .map((s) => s.trim())
                        .filter(Boolean),
                    })
                  }
                />
              )}
            </Field>
            <Field label={pm.verdict}>
              {(fid) => (
                <select id={fid} value={draft.verdict} onChange={(e) => set({ verdict: e.currentTarget.value as Draft["verdict"] })}>
                  {VERDICTS.map((v) => (
                    <option key={v} value={v}>
                      {t.value.verdicts[v]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {isChallenge && (
              <Field label={pm.challengeType}>
                {(fid) => (
                  <select
                    id={fid}
                    value={draft.challenge?.type ?? "account_takeover"}
                    onChange={(e) =>
                      set({
                        challenge: {
                          channels: ["email"],
                          require: "any",
                          allow_skip: false,
                          skip_limit: 3,
                          ...draft.challenge,
                          type: e.currentTarget.value as (typeof CHALLENGE_TYPES)[number],
                        },
                      })
                    }
                  >
                    {CHALLENGE_TYPES.map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            )}
            {isChallenge && (
              <Field label={pm.channels}>
                {(fid) => (
                  <select
                    id={fid}
                    value={(draft.challenge?.channels ?? ["email"]).join("+")}
                    onChange={(e) =>
                      set({
                        challenge: {
                          type: "account_takeover",
                          require: "any",
                          allow_skip: false,
                          skip_limit: 3,
                          ...draft.challenge,
                          channels: e.currentTarget.value.split("+") as (typeof CHANNELS)[number][],
                        },
                      })
                    }
                  >
                    {["email", "text", "email+text"].map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            )}
            <div class="field check">
              <input
                id="policy-enabled"
                type="checkbox"
                checked={draft.enabled}
                onChange={(e) => set({ enabled: e.currentTarget.checked })}
              />
              <label for="policy-enabled">{pm.enabled}</label>
            </div>
          </div>
          <Field label={pm.description}>
            {(fid) => (
              <textarea
                id={fid}
                rows={2}
                value={draft.description ?? ""}
                onInput={(e) => set({ description: e.currentTarget.value || undefined })}
              />
            )}
          </Field>
          <h2>{m.conditions}</h2>
          <div class="tabs">
            <button type="button" aria-pressed={view === "tree"} onClick={() => setView("tree")}>
              {m.tree}
            </button>
            <button
              type="button"
              aria-pressed={view === "json"}
              onClick={() => {
                setJsonText(JSON.stringify(draft.conditions, null, 2));
                setJsonError("");
                setView("json");
              }}
            >
              {m.json}
            </button>
          </div>
          {view === "tree" ? (
            <ul class="tree root">
              <ConditionNode cond={draft.conditions} at="conditions" bad={problem?.param} onChange={(c) => set({ conditions: c })} />
            </ul>
          ) : (
            <Field label={m.jsonLabel}>
              {(fid) => (
                <textarea
                  id={fid}
                  class="json"
                  dir="ltr"
                  rows={14}
                  value={jsonText}
                  aria-invalid={jsonError ? true : undefined}
                  onInput={(e) => {
                    const text = e.currentTarget.value;
                    setJsonText(text);
                    try {
                      set({ conditions: JSON.parse(text) as Condition });
                      setJsonError("");
                    } catch (err) {
                      setJsonError(m.jsonInvalid((err as Error).message));
                    }
                  }}
                />
              )}
            </Field>
          )}
          <p id="validation" class={problem || jsonError ? "invalid-text" : "valid-text"} aria-live="polite">
            {jsonError || (problem ? m.invalid(problem.param, problem.message) : m.valid)}
          </p>
          <div class="actions">
            <button type="submit" class="primary" disabled={!!problem || !!jsonError}>
              {t.value.save}
            </button>
            {!isNew && (
              <button
                type="button"
                class="danger"
                onClick={() => {
                  if (confirm(t.value.confirm)) void act(() => del(`/v3/policies/${id}`), m.deleted).then((ok) => ok && go("policies"));
                }}
              >
                {m.delete}
              </button>
            )}
          </div>
        </fieldset>
      </form>
      {!problem && !jsonError && <BacktestPanel draft={draft} id={isNew ? undefined : id} />}
      <p>
        <Code>{isNew ? "" : id}</Code>
      </p>
    </section>
  );
}
