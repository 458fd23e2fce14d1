// Small building blocks shared by the screens: the focusable screen title, data loading, live messages, form
// fields, dates, verdict badges and JSON blocks. A failure says what failed, the server's own message, and what to do
// about it (explain); when the server names the offending field (`param`), the field says it too (fieldError).
import { signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "./api.js";
import { lang, t } from "./i18n/index.js";

/** The screen's heading; focus moves here when the screen changes (app.tsx). */
export function Title({ children }: { children: ComponentChildren }) {
  return (
    <h1 id="screen-title" tabIndex={-1}>
      {children}
    </h1>
  );
}

/** The latest error or confirmation, announced by the live regions of the shell until dismissed or the screen changes. */
export const notice = signal<{ kind: "error" | "info"; text: string; carry?: boolean } | null>(null);

/** The field the server refused (its `param`) and why: shown next to that field (Field, by its `name`). */
export const fieldError = signal<{ param: string; message: string } | null>(null);

export function say(kind: "error" | "info", text: string): void {
  notice.value = { kind, text };
}

/** A confirmation that outlives the move to another screen it leads to ("The user's data was erased" on Users). */
export function sayAcross(text: string): void {
  notice.value = { kind: "info", text, carry: true };
}

export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.param ? `${err.message} (${err.param})` : err.message;
  return String(err);
}

/** What to do about a failure, from its status: the server's message says what was wrong. */
function advice(err: ApiError): string {
  const m = t.value.errors;
  if (err.code === "network") return m.network;
  if (err.status === 401) return m.signedOut;
  if (err.status === 403) return m.forbidden;
  if (err.status === 404) return m.notFound;
  if (err.status === 409) return m.conflict;
  if (err.status === 429) return m.rateLimited;
  if (err.status >= 500) return m.server;
  return err.param ? m.field(err.param) : "";
}

/** "Could not save: Origin must be https (allowed_origins). Correct the field marked and try again." */
export function explain(err: unknown, what: string = t.value.errors.action): string {
  if (!(err instanceof ApiError)) return `${what}: ${String(err)}`;
  const message = err.code === "network" ? "" : `: ${err.message.replace(/\.$/, "")}`;
  return [`${what}${message}.`, advice(err)].filter(Boolean).join(" ");
}

/** Shows a failure: the notice, and the refused field's own message beside it (focused, for the keyboard). */
export function report(err: unknown, what?: string): void {
  say("error", explain(err, what));
  if (err instanceof ApiError && err.param) {
    fieldError.value = { param: err.param, message: err.message };
    requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
  }
}

/**
 * Runs an action, showing its failure (never swallowed) or `done` on success; `what` says what failed ("Could not
 * erase the user"), and the server's message and the advice follow it.
 */
export async function act(run: () => Promise<unknown>, done?: string, what?: string): Promise<boolean> {
  notice.value = null;
  fieldError.value = null;
  try {
    await run();
    if (done) say("info", done);
    return true;
  } catch (err) {
    report(err, what);
    return false;
  }
}

export interface Loaded<T> {
  data?: T;
  /** Why the load failed, already explained for the operator (explain). */
  error?: string;
  loading: boolean;
  reload(): void;
}

/** Loads data when `deps` change; `reload` loads again. */
export function useData<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  // The caller names what the load depends on.
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (err) => live && setState({ error: explain(err, t.value.errors.load), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** A failed load: what failed, the server's message, what to do, and a way to try again. */
export function LoadError({ text, retry }: { text: string; retry: () => void }) {
  return (
    <div class="load-error" role="alert">
      <p class="error">{text}</p>
      <button type="button" class="secondary" onClick={retry}>
        {t.value.errors.retry}
      </button>
    </div>
  );
}

/** Loading, error or the content. */
export function Show<T>({ of, children }: { of: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (of.error) return <LoadError text={of.error} retry={of.reload} />;
  if (of.data === undefined) return <p aria-busy="true">{t.value.loading}</p>;
  return <>{children(of.data)}</>;
}

/** What a control spreads to say it is the refused one: aria-invalid, and its error as its description. */
export interface FieldState {
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

let fieldIds = 0;
/**
 * A labelled form field; the label's `for` points at the control. `name` is the request field it sets (the server's
 * `param`): when the server refuses that field (or one inside it), its message shows here and the control, spreading
 * the state it is given, is marked invalid.
 */
export function Field({
  label,
  children,
  hint,
  name,
}: {
  label: string;
  hint?: string;
  name?: string;
  children: (id: string, state: FieldState) => ComponentChildren;
}) {
  const [id] = useState(() => `f${++fieldIds}`);
  const refused = fieldError.value;
  const error = name && refused && (refused.param === name || refused.param.startsWith(`${name}.`)) ? refused.message : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(id, error ? { "aria-invalid": true, "aria-describedby": `${id}-error` } : {})}
      {hint && <small>{hint}</small>}
      {error && (
        <small class="field-error" id={`${id}-error`}>
          {error}
        </small>
      )}
    </div>
  );
}

export function when(isoTime: string | undefined): string {
  if (!isoTime) return "";
  return new Intl.DateTimeFormat(lang.value, { dateStyle: "medium", timeStyle: "medium" }).format(new Date(isoTime));
}

export function Verdict({ v }: { v: string }) {
  return <span class={`badge v-${v}`}>{t.value.verdicts[v] ?? v}</span>;
}

/** Identifiers and machine names stay left to right inside right-to-left text. */
export function Code({ children }: { children: ComponentChildren }) {
  return (
    <code dir="ltr" class="code">
      {children}
    </code>
  );
}

/** A JSON value, read-only: a textarea is focusable and scrolls by keyboard, and carries its label. */
export function Json({ value, label }: { value: unknown; label: string }) {
  const text = JSON.stringify(value, null, 2);
  return <textarea class="json" dir="ltr" aria-label={label} readOnly rows={Math.min(16, text.split("\n").length)} value={text} />;
}

export function Link({ to, children }: { to: string; children: ComponentChildren }) {
  return <a href={`#/${to}`}>{children}</a>;
}

/** A table that scrolls sideways on a narrow screen; `headers` are its column headings (false leaves one out). */
export function Table({
  headers,
  caption,
  class: cls,
  children,
}: {
  headers: (string | false)[];
  caption?: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="scroll">
      <table class={cls}>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {headers
              .filter((h): h is string => h !== false)
              .map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
