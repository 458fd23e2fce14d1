// Queries of the evaluate hot path, built and compiled by Kysely once per dialect instead of on every call. Building
// a query (immutable operation nodes, frozen at each step) and compiling it (a visitor over those nodes) cost about
// as much CPU as SQLite running it: 15 % of an evaluation in the bench profile, for ~17 queries each.
//
// The query is written once with Kysely as usual; its values are slots (`p.name`), which Kysely compiles as ordinary
// parameters. Each call substitutes the values into the compiled parameter list and runs the compiled SQL on the
// given connection or transaction. One query code still serves both dialects.
import { type Compilable, CompiledQuery, type Kysely, type QueryResult, type SelectQueryBuilder } from "kysely";
import type { Database } from "./schema.js";
import { nameStatement } from "./statement-names.js";
import { queuedWrite } from "./write-batch.js";

/** Stands for the named value of a call; Kysely sees an opaque value and compiles it as a parameter. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * Runs compiled SQL skipping Kysely's executor (its connection mutex and layers of promises cost as much as a simple
 * indexed read on the embedded store; on PostgreSQL a dozen promises per statement, each through the async hooks).
 * Registered by openStore (store/db.ts): synchronously on the embedded store, on a client of the pool on PostgreSQL.
 * Answers undefined when it may not run the query now (SQLite: another flow's transaction holds the connection;
 * PostgreSQL: inside a transaction, whose connection and write batch Kysely holds), and Kysely's path is taken.
 */
export type DirectRunner = (
  db: Kysely<Database>,
  sql: string,
  parameters: readonly unknown[],
) => QueryResult<unknown> | Promise<QueryResult<unknown>> | undefined;

/** Direct runners by Kysely adapter: one adapter per Kysely instance, shared by its transactions. */
const directs = new WeakMap<object, DirectRunner>();

export function registerDirectRunner(db: Kysely<Database>, run: DirectRunner): void {
  directs.set(db.getExecutor().adapter, run);
}

interface Compiled {
  sql: string;
  parameters: readonly unknown[];
}

export class Prepared<P extends object, R> {
  /** Compiled once per dialect: the adapter is one object per Kysely instance family (a transaction shares it). */
  private readonly compiled = new WeakMap<object, Compiled>();

  constructor(private readonly build: (db: Kysely<Database>, p: P) => Compilable<R>) {}

  async execute(db: Kysely<Database>, params: P): Promise<QueryResult<R>> {
    return this.#run(db, params, false);
  }

  /**
   * Runs a write whose answer the caller does not read. On PostgreSQL, inside a transaction, it may wait to go out
   * with the transaction's other queued writes as one statement (store/write-batch.ts says which writes qualify).
   */
  async queue(db: Kysely<Database>, params: P): Promise<void> {
    await this.#run(db, params, true);
  }

  async #run(db: Kysely<Database>, params: P, queue: boolean): Promise<QueryResult<R>> {
    const { adapter } = db.getExecutor();
    let c = this.compiled.get(adapter);
    if (!c) {
      const slots = new Proxy({}, { get: (_, name) => new Slot(String(name)) }) as P;
      const q = this.build(db, slots).compile();
      c = { sql: q.sql, parameters: q.parameters };
      this.compiled.set(adapter, c);
      nameStatement(c.sql);
    }
    const values = params as Record<string, unknown>;
    const parameters = c.parameters.map((v) => (v instanceof Slot ? (values[v.name] ?? null) : v));
    const direct = directs.get(adapter)?.(db, c.sql, parameters);
    if (direct) return direct as QueryResult<R>;
    return db.executeQuery((queue ? queuedWrite(c.sql, parameters) : CompiledQuery.raw(c.sql, parameters)) as CompiledQuery<R>);
  }

  async rows(db: Kysely<Database>, params: P): Promise<R[]> {
    return (await this.execute(db, params)).rows;
  }

  async first(db: Kysely<Database>, params: P): Promise<R | undefined> {
    return (await this.execute(db, params)).rows[0];
  }
}

export const prepared = <P extends object, R>(build: (db: Kysely<Database>, p: P) => Compilable<R>) => new Prepared(build);

/** A statement compiled for one table and one set of columns (the keys a row or patch defines, in their order). */
interface Shaped {
  columns: readonly string[];
  ignoreConflictOn: readonly string[] | undefined;
  prepared: Prepared<Record<string, unknown>, unknown>;
}

/** Compiled inserts by table: a table has a few shapes of row (one per writer, mostly). */
const inserts = new Map<string, Shaped[]>();

/**
 * Inserts one row, compiled once per table and set of columns (a column left undefined keeps its default, as with
 * Kysely's own insert): parsing an insert's values is most of Kysely's cost on the hot path. `ignoreConflictOn`:
 * a row clashing on these unique columns is skipped (ON CONFLICT DO NOTHING). Answers whether the row was inserted.
 */
export async function insertRow<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  row: object,
  ignoreConflictOn?: ReadonlyArray<keyof Database[T] & string>,
): Promise<boolean> {
  return Number((await insertOf(table, row, ignoreConflictOn).execute(db, row as Record<string, unknown>)).numAffectedRows ?? 0n) > 0;
}

/** insertRow for a caller that does not ask whether the row was inserted: it may join a write batch (Prepared.queue). */
export async function queueInsert<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  row: object,
  ignoreConflictOn?: ReadonlyArray<keyof Database[T] & string>,
): Promise<void> {
  await insertOf(table, row, ignoreConflictOn).queue(db, row as Record<string, unknown>);
}

function insertOf<T extends keyof Database & string>(
  table: T,
  row: object,
  ignoreConflictOn?: ReadonlyArray<keyof Database[T] & string>,
): Prepared<Record<string, unknown>, unknown> {
  const values = row as Record<string, unknown>;
  let shapes = inserts.get(table);
  if (!shapes) {
    shapes = [];
    inserts.set(table, shapes);
  }
  for (const s of shapes) if (sameColumns(s.columns, values) && sameList(s.ignoreConflictOn, ignoreConflictOn)) return s.prepared;
  const columns = Object.keys(values).filter((k) => values[k] !== undefined);
  const insert = prepared((d, p: Record<string, unknown>) => {
    const q = d.insertInto(table).values(Object.fromEntries(columns.map((c) => [c, p[c]])) as never);
    return ignoreConflictOn ? q.onConflict((oc) => oc.columns(ignoreConflictOn as never).doNothing()) : q;
  });
  shapes.push({ columns, ignoreConflictOn: ignoreConflictOn && [...ignoreConflictOn], prepared: insert });
  return insert;
}

/**
 * Whether the keys `values` defines (not undefined), in their order, are `columns`: compared in place, where joining
 * them into a key string for a map cost ~2.8 µs and 1–2 KiB of strings for an evaluation's row of 34 columns.
 */
function sameColumns(columns: readonly string[], values: Record<string, unknown>): boolean {
  let i = 0;
  for (const k in values) {
    if (values[k] === undefined) continue;
    if (columns[i++] !== k) return false;
  }
  return i === columns.length;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Compiled updates by table, each for one set of columns set. */
const updates = new Map<string, Shaped[]>();

/**
 * Updates the row with this id, compiled once per table and set of columns (a column left undefined is not set).
 * Answers whether a row was updated.
 */
export async function updateRow<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  id: string,
  patch: object,
): Promise<boolean> {
  const update = updateOf(table, patch);
  return update !== undefined && Number((await update.execute(db, { ...patch, id })).numAffectedRows ?? 0n) > 0;
}

/** updateRow for a caller that does not ask whether a row was updated: it may join a write batch (Prepared.queue). */
export async function queueUpdate<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  id: string,
  patch: object,
): Promise<void> {
  await updateOf(table, patch)?.queue(db, { ...patch, id });
}

function updateOf(table: string, patch: object): Prepared<Record<string, unknown>, unknown> | undefined {
  const values = patch as Record<string, unknown>;
  let shapes = updates.get(table);
  if (!shapes) {
    shapes = [];
    updates.set(table, shapes);
  }
  for (const s of shapes) if (sameColumns(s.columns, values)) return s.prepared;
  const defined = Object.keys(values).filter((k) => values[k] !== undefined);
  const columns = defined.filter((k) => k !== "id");
  if (columns.length === 0) return undefined;
  // Typed loosely: Kysely cannot type a `set` over a table chosen at run time.
  const update = prepared((d, p: Record<string, unknown>) =>
    (d as unknown as Kysely<Record<string, { id: string }>>)
      .updateTable(table as string)
      .set(Object.fromEntries(columns.map((c) => [c, p[c]])))
      .where("id", "=", p.id as string),
  );
  // Matched on every key the patch defines, its id included (sameColumns walks them all).
  shapes.push({ columns: defined, ignoreConflictOn: undefined, prepared: update });
  return update;
}

/**
 * A query's `limit` rows with the greatest `column` (a number), greatest first, sorted in JavaScript when they all
 * fit: SQLite sorts through a temporary b-tree, which cost ~12 µs per call on the evaluate path even for one row.
 * The query runs unordered with one row more than the limit; only when more rows exist does it run again with
 * ORDER BY column DESC. `column` must be among the selected columns.
 */
export function newestFirst<P extends object, R>(
  column: string & keyof R,
  // biome-ignore lint/suspicious/noExplicitAny: any table and selection; the result type is R
  build: (db: Kysely<Database>, p: P) => SelectQueryBuilder<Database, any, R>,
) {
  type Limited = P & { limit: number };
  const unordered = prepared((db, p: Limited) => build(db, p).limit(p.limit));
  const ordered = prepared((db, p: Limited) =>
    build(db, p)
      .orderBy(column as never, "desc")
      .limit(p.limit),
  );
  return {
    async rows(db: Kysely<Database>, params: P, limit: number): Promise<R[]> {
      const rows = await unordered.rows(db, { ...params, limit: limit + 1 });
      if (rows.length > limit) return ordered.rows(db, { ...params, limit });
      return rows.sort((a, b) => Number(b[column]) - Number(a[column]));
    },
  };
}
