// PostgreSQL: a transaction's writes sent as one statement (docs/decisions/write-batch.md). Every statement is a round
// trip, and a client evaluation's transaction was `begin`, three to six writes whose answers nobody reads, and `commit`:
// each one CPU on both sides (pg and Kysely here, a protocol exchange and a wake-up in the backend) and row locks held
// across the round trips. A write queued by its repository (Prepared.queue, queueInsert, queueUpdate in prepared.ts)
// waits in the transaction's connection; the queue goes out as one statement, data-modifying CTEs
// (`with "w1" as (insert …), "w2" as (update …) insert …`), just before the transaction's next other statement or its
// commit. A transaction whose statements were all queued sends neither `begin` nor `commit`: one statement is atomic by
// itself (its writes commit together or not at all), so it is the whole transaction, one round trip.
//
// What a queued write may be: one whose answer its caller does not read (no RETURNING, no row count), that touches one
// table and reads no other table the transaction writes (the statements of one batch share a snapshot and do not see
// each other's rows). Two writes to one table never share a batch (PostgreSQL does not say which of two changes to one
// row in one statement wins): the second sends the first. A failed write shows at the commit instead of at its call.
import { CompiledQuery, type DatabaseConnection, type Driver, PostgresDialect, type QueryResult, type TransactionSettings } from "kysely";
import { nameStatement } from "./statement-names.js";

const queueable = new WeakSet<CompiledQuery>();

/** A write that may wait for the transaction's next statement or its commit (see the file's header). */
export function queuedWrite(sql: string, parameters: readonly unknown[]): CompiledQuery {
  const q = CompiledQuery.raw(sql, parameters as unknown[]);
  queueable.add(q);
  return q;
}

/** The table a write statement changes, from its first words (Kysely writes `insert into "t"`, `update "t"`). */
function targetOf(sql: string): string | undefined {
  return /^(?:insert into|update|delete from) "([^"]+)"/.exec(sql)?.[1];
}

/** `sql` with its parameters $1… renumbered from `offset + 1`, outside quoted strings and names. */
function shift(sql: string, offset: number): string {
  if (offset === 0) return sql;
  let out = "";
  let quote: string | undefined;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "$" && /\d/.test(sql[i + 1] ?? "")) {
      let j = i + 1;
      while (j < sql.length && /\d/.test(sql[j]!)) j++;
      out += `$${Number(sql.slice(i + 1, j)) + offset}`;
      i = j - 1;
    } else out += ch;
  }
  return out;
}

/**
 * Batch texts seen, each built once and sent as a named statement (store/db.ts): the write combinations of the code's
 * paths, a few dozen. Past the bound a new combination is built each time and sent unnamed.
 */
const texts = new Map<string, string>();
const MAX_TEXTS = 500;

/** The queued writes as one statement: each but the last a data-modifying CTE, the last the main statement. */
export function batchOf(writes: readonly CompiledQuery[]): CompiledQuery {
  if (writes.length === 1) return writes[0]!;
  const key = writes.map((w) => w.sql).join("\u0000");
  let text = texts.get(key);
  const parameters: unknown[] = [];
  const parts: string[] = [];
  for (const w of writes) {
    if (text === undefined) parts.push(shift(w.sql, parameters.length));
    parameters.push(...w.parameters);
  }
  if (text === undefined) {
    const last = parts.pop()!;
    text = `with ${parts.map((p, i) => `"w${i + 1}" as (${p})`).join(", ")} ${last}`;
    if (texts.size < MAX_TEXTS) {
      texts.set(key, text);
      nameStatement(text);
    }
  }
  return CompiledQuery.raw(text, parameters);
}

const NOTHING: QueryResult<never> = { rows: [] };

/** A connection whose transaction's `begin` waits for its first statement, and whose queued writes wait for a batch. */
class BatchingConnection implements DatabaseConnection {
  readonly queued: CompiledQuery[] = [];
  readonly tables = new Set<string>();
  /** idle: no transaction; deferred: a transaction whose `begin` is not sent yet; open: `begin` sent. */
  state: "idle" | "deferred" | "open" = "idle";

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    if (this.state === "idle") return this.inner.executeQuery(q);
    const table = queueable.has(q) ? targetOf(q.sql) : undefined;
    if (table !== undefined && !this.tables.has(table)) {
      this.queued.push(q);
      this.tables.add(table);
      return NOTHING;
    }
    await this.send();
    if (table !== undefined) {
      this.queued.push(q);
      this.tables.add(table);
      return NOTHING;
    }
    return this.inner.executeQuery(q);
  }

  async *streamQuery<R>(q: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.state !== "idle") await this.send();
    yield* this.inner.streamQuery<R>(q, chunkSize);
  }

  /** Opens the transaction if it waits, then sends the queued writes. */
  async send(): Promise<void> {
    if (this.state === "deferred") {
      this.state = "open";
      await this.inner.executeQuery(CompiledQuery.raw("begin"));
    }
    if (this.queued.length === 0) return;
    const batch = batchOf(this.queued);
    this.drop();
    await this.inner.executeQuery(batch);
  }

  drop(): void {
    this.queued.length = 0;
    this.tables.clear();
  }
}

class BatchingDriver implements Driver {
  readonly #wrapped = new WeakMap<DatabaseConnection, BatchingConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const c = await this.inner.acquireConnection();
    let w = this.#wrapped.get(c);
    if (!w) {
      w = new BatchingConnection(c);
      this.#wrapped.set(c, w);
    }
    return w;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as BatchingConnection;
    c.drop();
    if (settings.isolationLevel || settings.accessMode) {
      await this.inner.beginTransaction(c.inner, settings);
      c.state = "open";
    } else c.state = "deferred";
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as BatchingConnection;
    if (c.state === "deferred") {
      // Nothing sent yet: the queued writes are the whole transaction, one statement, atomic by itself.
      c.state = "idle";
      if (c.queued.length === 0) return;
      const batch = batchOf(c.queued);
      c.drop();
      await c.inner.executeQuery(batch);
      return;
    }
    await c.send();
    await this.inner.commitTransaction(c.inner);
    c.state = "idle";
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as BatchingConnection;
    c.drop();
    if (c.state !== "open") {
      c.state = "idle";
      return;
    }
    c.state = "idle";
    await this.inner.rollbackTransaction(c.inner);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as BatchingConnection;
    c.drop();
    c.state = "idle";
    await this.inner.releaseConnection(c.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Kysely's PostgreSQL dialect with transactions that send their queued writes as one statement. */
export class BatchingPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new BatchingDriver(super.createDriver());
  }
}
