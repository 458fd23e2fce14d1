// PostgreSQL: the reads one evaluation asks at the same moment sent as one statement (docs/decisions/joined-reads.md).
// Every statement is a round trip, and each costs ~150–250 µs of CPU on each side whatever it does (pg's promise
// chain and protocol message here, a wake-up, Bind/Execute/Sync and a reply in the backend). The identity step's user
// and token lookups, and the facts stage's reads (the history's numbers with the velocity bump, the user's trusted
// places, the churn's and the sign-up farm's counters, the users' lists) are independent of each other: they went out
// on separate connections of the pool at once, one round trip each.
//
// A repository asks such a read with `joinRead` and a `JoinableRead` (its query written once, as a prepared one:
// store/prepared.ts). The reads asked on one connection (the pool, or a transaction) before the asking code reaches
// its next await (a microtask) go out together: one read alone as its own statement, exactly as before; several as
// one statement, each read a scalar subquery aggregating its rows into JSON (`json_agg`), which pg parses, and every
// data-modifying CTE of theirs (the counters' upserts) at the statement's top, where PostgreSQL requires them:
//
//   with "bumped_3" as (insert into "velocity_counters" … returning …)
//   select (select coalesce(json_agg(t), '[]') from (select * from "users" …) as t) as "r0", …,
//          (select coalesce(json_agg(t), '[]') from (select (… from "bumped_3" …) as "user_events_now", …) as t) as "r3"
//
// A read's rows come back with its own column names and JSON's types: text as strings, integer, bigint and double
// precision columns as numbers (as pg's parsers give them, store/db.ts), booleans as booleans; a `sum` (numeric) as a
// number where pg gives a string, which every reader passes through Number() anyway.
//
// What joining must keep: the reads of one statement share its snapshot, as the reads and the upsert of one statement
// did before (store/history.ts, store/detection.ts: each counter's earlier buckets read from the snapshot, its current
// one from the upsert's answer); the upserts of two parts change rows of one table under keys of different prefixes
// (velocity "u:", "i:", "f:"; churn "n…"; the farm's "ns:"), never one row twice. Parts go in a fixed order, reads
// first and the writes last (`rank`), so the statement takes its row locks in one order whatever its shape, and holds
// them only while the statement ends. On the embedded store a statement is a call, not a round trip: every read runs
// as its own query, as before.
import { type Kysely, type QueryCreator, type SelectQueryBuilder, sql } from "kysely";
import type { Dialect } from "./db.js";
import { type Prepared, prepared } from "./prepared.js";
import type { Database } from "./schema.js";

type Row = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: a CTE or a read over any tables (the parts type their own)
type AnyQuery = any;
// biome-ignore lint/suspicious/noExplicitAny: the query creator of any tables, CTEs included
type Creator = QueryCreator<any>;

/** A read as a part of a statement: its data-modifying CTEs, named through `name`, and its read over them. */
export interface ReadPart {
  ctes?: ReadonlyArray<readonly [string, (qc: Creator) => AnyQuery]>;
  read: (qc: Creator) => SelectQueryBuilder<AnyQuery, AnyQuery, AnyQuery>;
}

let ids = 0;

/**
 * A read that may share a statement with others (joinRead). `rank` orders the parts of a statement: reads below 50,
 * reads that write (a counter's upsert) from 50, each kind of write at a rank of its own.
 */
export class JoinableRead<P extends object, R = Row> {
  readonly id = ++ids;
  /** The read as its own statement (with its CTEs): what runs alone, and on the embedded store. */
  readonly alone: Prepared<P, R>;

  constructor(
    readonly rank: number,
    readonly build: (db: Kysely<Database>, p: P, name: (cte: string) => string) => ReadPart,
  ) {
    this.alone = prepared((db, p: P) => {
      const part = build(db, p, (n) => n);
      let q: Creator = db;
      for (const [n, cte] of part.ctes ?? []) q = q.with(n, cte);
      return part.read(q) as SelectQueryBuilder<AnyQuery, AnyQuery, R>;
    });
  }
}

/** A read without CTEs, built as a prepared query is. */
export function joinable<P extends object, R>(
  rank: number,
  read: (db: Kysely<Database>, p: P) => SelectQueryBuilder<AnyQuery, AnyQuery, R>,
) {
  return new JoinableRead<P, R>(rank, (db, p) => ({ read: () => read(db, p) }));
}

interface Waiting {
  read: JoinableRead<object, unknown>;
  params: object;
  resolve: (rows: Row[]) => void;
  reject: (e: unknown) => void;
}

interface Flight {
  waiting: Waiting[];
  /** Called as the flight leaves: gatherers of their own (store/user-lists.ts) add their reads then. */
  seals: Array<() => void>;
}

/** The flight being gathered on each connection (a transaction, or the pool), until its microtask sends it. */
const flights = new Map<Kysely<Database>, Flight>();

function flightOf(db: Kysely<Database>): Flight {
  let flight = flights.get(db);
  if (flight) return flight;
  const fresh: Flight = { waiting: [], seals: [] };
  flight = fresh;
  flights.set(db, fresh);
  queueMicrotask(() => {
    // A seal's reads join this flight: it leaves the map only after them.
    for (const seal of fresh.seals) seal();
    if (flights.get(db) === fresh) flights.delete(db);
    void send(db, fresh);
  });
  return fresh;
}

/** The rows of `read`: on PostgreSQL in one statement with the other reads asked on `db` at the same moment. */
export function joinRead<P extends object, R>(db: Kysely<Database>, dialect: Dialect, read: JoinableRead<P, R>, params: P): Promise<R[]> {
  if (dialect !== "postgres") return read.alone.rows(db, params);
  const flight = flightOf(db);
  return new Promise((resolve, reject) =>
    flight.waiting.push({
      read: read as unknown as JoinableRead<object, unknown>,
      params,
      resolve: resolve as (rows: Row[]) => void,
      reject,
    }),
  );
}

/** PostgreSQL: runs `seal` as the reads asked on `db` now leave, so that the reads it asks then go with them. */
export function beforeFlight(db: Kysely<Database>, seal: () => void): void {
  flightOf(db).seals.push(seal);
}

/** Joined statements by their parts' reads, in order; past the bound a new combination's reads go one by one. */
const joined = new Map<string, Prepared<Row, Row>>();
const MAX_JOINED = 500;

function joinedOf(reads: ReadonlyArray<JoinableRead<object, unknown>>): Prepared<Row, Row> {
  return prepared((db, p: Row) => {
    let q: Creator = db;
    const columns = reads.map((read, i) => {
      // The part's values are named `<part>_<name>` in the joined statement.
      const own = new Proxy({}, { get: (_, name) => p[`${i}_${String(name)}`] });
      const part = read.build(db, own, (n) => `${n}_${i}`);
      for (const [n, cte] of part.ctes ?? []) q = q.with(n, cte);
      return sql`(select coalesce(json_agg(t), '[]') from ${part.read(db)} as t)`.as(`r${i}`);
    });
    return q.selectNoFrom(columns);
  });
}

async function send(db: Kysely<Database>, flight: Flight): Promise<void> {
  const waiting = flight.waiting.sort((a, b) => a.read.rank - b.read.rank || a.read.id - b.read.id);
  if (waiting.length === 0) return;
  const alone = (w: Waiting) => w.read.alone.rows(db, w.params).then((rows) => w.resolve(rows as Row[]), w.reject);
  if (waiting.length === 1) return alone(waiting[0]!);
  const key = waiting.map((w) => w.read.id).join(",");
  let query = joined.get(key);
  if (!query) {
    if (joined.size >= MAX_JOINED) {
      await Promise.all(waiting.map(alone));
      return;
    }
    query = joinedOf(waiting.map((w) => w.read));
    joined.set(key, query);
  }
  const values: Row = {};
  waiting.forEach((w, i) => {
    const params = w.params as Row;
    for (const name in params) values[`${i}_${name}`] = params[name];
  });
  try {
    const row = await query.first(db, values);
    for (const [i, w] of waiting.entries()) w.resolve((row?.[`r${i}`] as Row[] | undefined) ?? []);
  } catch (e) {
    for (const w of waiting) w.reject(e);
  }
}
