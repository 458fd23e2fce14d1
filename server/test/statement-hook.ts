// Test helper: calls a function after every SQL statement either store runs in this process (better-sqlite3
// statements and exec, pg client queries), to crash or take a crash image at an exact point.
import SQLite from "better-sqlite3";
import pg from "pg";

type Fn = (...a: unknown[]) => unknown;

/** Installs `after` (called with the running count) and answers a function that removes it. */
export function afterEachStatement(after: (count: number) => void): () => void {
  let count = 0;
  const tick = () => after(++count);
  const restore: Array<() => void> = [];
  const patch = (target: Record<string, unknown>, method: string, wrap: (original: Fn) => Fn) => {
    const original = target[method] as Fn;
    target[method] = wrap(original);
    restore.push(() => {
      target[method] = original;
    });
  };
  const counted = (original: Fn) =>
    function (this: unknown, ...args: unknown[]) {
      const out = original.apply(this, args);
      tick();
      return out;
    };
  const probe = new SQLite(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
  probe.close();
  for (const method of ["run", "all", "get", "iterate"]) patch(statement, method, counted);
  patch(SQLite.prototype as unknown as Record<string, unknown>, "exec", counted);
  patch(
    pg.Client.prototype as unknown as Record<string, unknown>,
    "query",
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const out = original.apply(this, args);
        // Counted once the server has answered: it has run the statement.
        if (out && typeof (out as Promise<unknown>).then === "function") {
          return (out as Promise<unknown>).then((r) => {
            tick();
            return r;
          });
        }
        return out;
      },
  );
  return () => {
    for (const r of restore.reverse()) r();
  };
}

/** The text of every statement pg sends while `fn` runs (none on the embedded store), with `fn`'s answer. */
export async function pgStatementsDuring<T>(fn: () => Promise<T>): Promise<{ sent: string[]; result: T }> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text: string };
    sent.push(typeof q === "string" ? q : q.text);
    return (original as Fn).apply(this, args);
  } as typeof original;
  try {
    return { sent, result: await fn() };
  } finally {
    pg.Client.prototype.query = original;
  }
}

/** The text of every statement the embedded store runs while `fn` runs (better-sqlite3's prepared statements). */
export async function sqliteStatementsDuring<T>(fn: () => Promise<T>): Promise<{ ran: string[]; result: T }> {
  const ran: string[] = [];
  const probe = new SQLite(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, Fn>;
  probe.close();
  const originals = new Map<string, Fn>();
  for (const method of ["run", "all", "get", "iterate"]) {
    const original = statement[method]!;
    originals.set(method, original);
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      ran.push(this.source);
      return original.apply(this, args);
    };
  }
  try {
    return { ran, result: await fn() };
  } finally {
    for (const [method, original] of originals) statement[method] = original;
  }
}

/**
 * How many times the event loop turns while `fn` runs (a `setImmediate` chain): on the embedded store a loop of awaited
 * queries never yields, so a job that must let requests in between its steps shows turns only if it yields.
 */
export async function eventLoopTurnsDuring<T>(fn: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let spinning = true;
  const spin = () => {
    if (!spinning) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    const result = await fn();
    return { turns, result };
  } finally {
    spinning = false;
  }
}
