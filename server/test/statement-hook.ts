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
