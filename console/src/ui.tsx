// Small building blocks shared by the screens: the focusable screen title, data loading, live messages, form
// fields, dates, verdict badges and JSON blocks.
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

/** The latest error or confirmation, announced by the live regions of the shell. */
export const notice = signal<{ kind: "error" | "info"; text: string } | null>(null);

export function say(kind: "error" | "info", text: string): void {
  notice.value = { kind, text };
}

export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.param ? `${err.message} (${err.param})` : err.message;
  return String(err);
}

/** Runs an action, showing its failure (never swallowed) or `done` on success. */
export async function act(run: () => Promise<unknown>, done?: string): Promise<boolean> {
  notice.value = null;
  try {
    await run();
    if (done) say("info", done);
    return true;
  } catch (err) {
    say("error", t.value.error(describe(err)));
    return false;
  }
}

export interface Loaded<T> {
  data?: T;
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
      (err) => live && setState({ error: describe(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** Loading, error or the content. */
export function Show<T>({ of, children }: { of: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (of.error) return <p class="error">{t.value.error(of.error)}</p>;
  if (of.data === undefined) return <p aria-busy="true">{t.value.loading}</p>;
  return <>{children(of.data)}</>;
}

let fieldIds = 0;
/** A labelled form field; the label's `for` points at the control. */
export function Field({ label, children, hint }: { label: string; hint?: string; children: (id: string) => ComponentChildren }) {
  const [id] = useState(() => `f${++fieldIds}`);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(id)}
      {hint && <small>{hint}</small>}
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
