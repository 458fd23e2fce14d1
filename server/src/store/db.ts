// Opens the store: SQLite (better-sqlite3, WAL) under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
// One Kysely query layer serves both; nothing outside server/src/store writes SQL.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
  sql,
} from "kysely";
import pg from "pg";
import { type Checkpointer, type CheckpointProgress, startCheckpointer } from "./checkpointer.js";
import { type AdvisoryLocks, postgresAdvisoryLocks } from "./key-locks.js";
import { registerDirectRunner } from "./prepared.js";
import type { Database } from "./schema.js";
import { renameStatement, statementName } from "./statement-names.js";
import { BatchingPostgresDialect } from "./write-batch.js";

export type Dialect = "sqlite" | "postgres";

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * Resolves once every write made so far is committed (rejects if it was lost). On the embedded store with group
   * commit, transactions end in a batch committed a moment later: wait for this before acknowledging a write to
   * anyone outside (an HTTP response, an email, a webhook). Always resolved on PostgreSQL.
   */
  durable(): Promise<void>;
  close(): Promise<void>;
  /**
   * PostgreSQL: advisory locks for the evaluations that share a key, on a pool of their own (store/key-locks.ts); the
   * embedded store serialises them in its one process.
   */
  advisory?: AdvisoryLocks;
  /** Embedded store: the file this process has open (readiness notices when it is removed or replaced). */
  sqliteFile?: { path: string; dev: number; ino: number };
}

// int8 (bigint) columns hold millisecond timestamps and counters that fit in a double: read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * What a committed write survives (config DURABILITY). `process`: the server process being killed. `power`: also an
 * operating-system crash or a power loss, when the disk honours flushes. Neither survives the loss of the disk:
 * that takes backups (store/backup.ts) or PostgreSQL replication.
 */
export type Durability = "process" | "power";

export interface StoreOptions {
  databaseUrl?: string;
  /** Embedded store: synchronous=NORMAL (`process`, the default) or FULL (`power`). */
  durability?: Durability;
  sqlitePath?: string;
  poolSize?: number;
  /** PostgreSQL timeouts (config.ts: DATABASE_*_TIMEOUT_MS); defaults below. */
  timeouts?: Partial<PostgresTimeouts>;
  /** Called with every error a query or a connection of the store raises (metrics: store errors). */
  onError?: (err: unknown) => void;
  /**
   * Embedded store only: commit the transactions of one event-loop turn together (see GroupCommit). The server turns
   * it on; short-lived commands (the CLI) leave it off so that each write is committed before they print.
   */
  groupCommit?: boolean;
}

export interface PostgresTimeouts {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** One statement, enforced by the server (statement_timeout) and, for a network that never answers, by the client. */
  statementMs: number;
  /** An idle pooled connection is closed after this long (a firewall or pooler would drop it silently later). */
  idleMs: number;
}

export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = { connectMs: 5_000, statementMs: 10_000, idleMs: 30_000 };

/**
 * How much longer than statement_timeout the client waits for an answer before it gives the connection up: the
 * server cancels a slow statement itself and says so; silence past that means the network or the server is gone.
 */
const CLIENT_DEADLINE_MARGIN_MS = 2_000;
/** A session left idle inside a transaction (a stuck or killed client) releases its locks after this long. */
const IDLE_IN_TRANSACTION_MS = 60_000;
/** TCP keepalive probes on idle connections start after this long, so a dead peer is noticed without traffic. */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * pg's own query_timeout fails the query but leaves the connection waiting for the answer (the pool then hands that
 * stuck connection to the next caller). Past the deadline this client destroys its socket instead: the query fails
 * with "Connection terminated", the connection is unusable and the pool discards it on release.
 */
function deadlineClient(deadlineMs: number): typeof pg.Client {
  return class DeadlineClient extends pg.Client {
    /** Between BEGIN and COMMIT/ROLLBACK (Kysely sends them as plain statements). */
    #inTransaction = false;
    /**
     * The session's statement_timeout is off (`set statement_timeout = 0`, the migrations' connection): its statements
     * may rightly take long (an index build, a wait for another instance's migration lock), so no client deadline either.
     */
    #unbounded = false;

    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; only the promise form is timed.
    override query(...args: any[]): any {
      // A query of the hot path (prepared.ts) goes as a named statement: parsed and planned once per connection.
      const [text, values] = args;
      const name = args.length === 2 && typeof text === "string" && Array.isArray(values) ? statementName(text) : undefined;
      if (!name && typeof text === "string") {
        if (/^\s*(begin|start transaction)\b/i.test(text)) this.#inTransaction = true;
        else if (/^\s*(commit|rollback|end)\b/i.test(text)) this.#inTransaction = false;
        else if (/^\s*set statement_timeout\s*=\s*0\s*$/i.test(text)) this.#unbounded = true;
        else if (/^\s*reset statement_timeout\s*$/i.test(text)) this.#unbounded = false;
      }
      // biome-ignore lint/suspicious/noExplicitAny: see above
      const send = (n: string | undefined) => (super.query as any)(...(n ? [{ name: n, text, values }] : args));
      let out = send(name);
      if (!out || typeof out.then !== "function") return out;
      if (name) {
        const inTransaction = this.#inTransaction;
        out = out.catch((e: { code?: string }) => {
          // feature_not_supported, "cached plan must not change result type": a migration changed the statement's table
          // under this instance. The text is prepared anew under a new name (on every connection from now on), at once
          // outside a transaction; inside one the error has aborted it, and the request fails.
          if (e?.code !== "0A000") throw e;
          renameStatement(text);
          if (inTransaction) throw e;
          return send(statementName(text));
        });
      }
      if (this.#unbounded) return out;
      const timer = setTimeout(() => {
        const stream = (this as unknown as { connection?: { stream?: { destroy(e?: Error): void } } }).connection?.stream;
        stream?.destroy(new Error(`No answer from PostgreSQL within ${deadlineMs} ms`));
      }, deadlineMs);
      timer.unref();
      return out.finally(() => clearTimeout(timer));
    }
  };
}

function openPostgres(opts: StoreOptions & { databaseUrl: string }): Store {
  const t = { ...DEFAULT_POSTGRES_TIMEOUTS, ...opts.timeouts };
  const onError = opts.onError ?? (() => {});
  const settings: pg.PoolConfig = {
    connectionString: opts.databaseUrl,
    max: opts.poolSize ?? 16,
    Client: deadlineClient(t.statementMs + CLIENT_DEADLINE_MARGIN_MS),
    connectionTimeoutMillis: t.connectMs,
    idleTimeoutMillis: t.idleMs,
    statement_timeout: t.statementMs,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
  const pool = new pg.Pool(settings);
  // The advisory locks' connections, as many as the store's: each sits in a transaction while its evaluation runs on
  // the store's pool, which it must never wait for (store/key-locks.ts).
  const lockPool = new pg.Pool(settings);
  // A connection that drops emits 'error' on its client. The pool listens only while the client is idle; a client
  // checked out (mid-query, mid-transaction) had no listener, and the unhandled 'error' event ended the process.
  // Every client gets one from its first connect: the query in flight fails on its own, and the pool discards the
  // dead client when it is released.
  for (const p of [pool, lockPool]) {
    p.on("connect", (client) => client.on("error", onError));
    p.on("error", onError);
  }
  // The store's statements are planned once per connection (generic plans), not anew at each of their first five
  // executions: the hot path's named statements are a few dozen texts on each of the pool's connections, among them
  // the facts' read of up to 121 parameters that took ~3 ms to plan each time, and a custom plan of a time range
  // (`created_at >= $3`) probed the index's end at each planning. Their generic plans are what PostgreSQL chooses after
  // those five anyway (docs/decisions/postgres-statement-costs.md). The `set` is the connection's first statement (a
  // client runs its queries in order); a server without the setting (before PostgreSQL 12) plans as before.
  pool.on("connect", (client) => {
    client.query(`set plan_cache_mode = ${PLAN_CACHE_MODE}`).catch(() => {});
  });
  const db = new Kysely<Database>({
    dialect: new BatchingPostgresDialect({ pool }),
    log: (event) => {
      if (event.level === "error") onError(event.error);
    },
  });
  // A prepared query outside a transaction (most of an evaluation's reads) goes straight to a client of the pool, as
  // Kysely's driver would send it (store/prepared.ts).
  registerDirectRunner(db, (on, text, parameters) => (on.isTransaction ? undefined : queryOnPool(pool, text, parameters, onError)));
  const advisory = postgresAdvisoryLocks(lockPool);
  return {
    db,
    dialect: "postgres",
    durable: () => RESOLVED,
    advisory,
    close: async () => {
      await advisory.close();
      await db.destroy();
    },
  };
}

/** How the store's connections plan their statements (see openPostgres). */
export const PLAN_CACHE_MODE = "force_generic_plan";

/** The statements whose row count Kysely answers as numAffectedRows (its PostgreSQL driver). */
const COUNTED = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);

/**
 * One statement on a client of the pool, answered as Kysely's PostgreSQL driver does; the client's query() names it
 * (a prepared query's text) and bounds it in time (deadlineClient). A failure is reported as Kysely's log would.
 */
async function queryOnPool(pool: pg.Pool, text: string, parameters: readonly unknown[], onError: (e: unknown) => void) {
  let client: pg.PoolClient | undefined;
  try {
    client = await pool.connect();
    const { command, rowCount, rows } = await client.query(text, parameters as unknown[]);
    return { rows: rows ?? [], numAffectedRows: COUNTED.has(command) ? BigInt(rowCount ?? 0) : undefined };
  } catch (e) {
    onError(e);
    throw e;
  } finally {
    // A client whose connection broke is not queryable any more: the pool discards it.
    client?.release();
  }
}

export function openStore(opts: StoreOptions): Store {
  if (opts.databaseUrl) return openPostgres({ ...opts, databaseUrl: opts.databaseUrl });
  const file = opts.sqlitePath ?? path.resolve("data", "tessera.db");
  if (file !== ":memory:") {
    // Users' contacts and the generated keys live in this file: readable by the server's user only (docs/security.md).
    // SQLite creates the -wal and -shm files with the database file's mode.
    createFolders(path.dirname(file));
    try {
      fs.closeSync(fs.openSync(file, "a", 0o600));
    } catch (e) {
      throw new DataDirError(path.dirname(file), `cannot create the database file ${file}`, e);
    }
  }
  const sqlite = new SQLite(file);
  const opened = file === ":memory:" ? undefined : fs.statSync(file);
  // WAL with synchronous=NORMAL survives a process crash (kill -9) without losing a committed write, but a commit is
  // only written to the WAL, not flushed: an OS crash or a power loss can drop the last commits (never half of one).
  // FULL flushes the WAL at every commit: with the group commit that is one fsync per batch, not per transaction
  // (docs/storage.md#durability has its cost). Checkpoints flush the WAL and the database file in both modes, and run
  // in the checkpointing thread's connection (checkpointer.ts), so the checkpoint hand-off (GroupCommit.walProgress) is
  // the same. busy_timeout lets the CLI and the server share the file.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma(`synchronous = ${opts.durability === "power" ? "FULL" : "NORMAL"}`);
  // better-sqlite3 waits for another process's write lock synchronously: the whole event loop stands still meanwhile.
  // The server (group commit) waits briefly (a CLI command holds the lock for milliseconds) and its batches then fail
  // fast while the lock stays taken (GroupCommit.open), so requests answer 503 and /readyz says so at once, instead of
  // the process freezing 5 s per write. One-off commands wait longer: they have nothing else to serve.
  sqlite.pragma(`busy_timeout = ${opts.groupCommit ? SERVER_BUSY_TIMEOUT_MS : 5000}`);
  sqlite.pragma("foreign_keys = ON");
  // The hot path's indexes stay in memory: a 32 MiB page cache (default 2 MiB) saves a read() per page missed;
  // sorts of small result sets (ORDER BY … LIMIT) stay in memory too. (No mmap: it would count the file in RSS.)
  sqlite.pragma("cache_size = -32768");
  sqlite.pragma("temp_store = MEMORY");
  // Query plans need statistics: without them SQLite may walk a whole environment's rows through the wrong index.
  // SQLite's advice for long-lived connections: optimize at open (0x10002: look at every table) and periodically.
  // analysis_limit bounds each ANALYZE to a sample, so a refresh costs milliseconds whatever the table size.
  sqlite.pragma("analysis_limit = 1000");
  try {
    sqlite.pragma("optimize = 0x10002");
  } catch {
    // Another process holds the write lock (SQLITE_BUSY): the periodic round below refreshes the statistics later.
  }
  const optimize = setInterval(() => {
    // While the checkpointing thread holds the file (GroupCommit.walProgress) the connection stays idle.
    if (group?.paused) return;
    try {
      sqlite.pragma("optimize");
    } catch {
      // Busy or closing: the next round will do it.
    }
  }, OPTIMIZE_EVERY_MS);
  optimize.unref();
  // Checkpoints run in a worker thread (checkpointer.ts), which reports to the group commit (it hands the thread the
  // idle connection to start the WAL over); SQLite's own stays as a fallback at a larger WAL size.
  let checkpointer: Checkpointer | undefined;
  if (file !== ":memory:") {
    // A new file's name is in its folder only once the folder is flushed: in `power` mode, flush it now that the
    // database file exists (created above), so a power loss after the first start cannot take the whole file. SQLite
    // flushes the folder itself for the WAL file it creates.
    if (opts.durability === "power") flushFolder(path.dirname(file));
    sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    checkpointer = startCheckpointer(file);
  }
  const group = opts.groupCommit ? new GroupCommit(sqlite, checkpointer) : undefined;
  const database = withStatementCache(sqlite, group);
  const onError = opts.onError;
  const db = new Kysely<Database>({
    dialect: group ? new GroupCommitDialect(database, group) : new TransactionalSqliteDialect({ database }),
    log: (event) => {
      if (event.level === "error") onError?.(event.error);
    },
  });
  if (group) {
    // Prepared queries (prepared.ts) run synchronously on the connection, unless another flow's transaction holds it:
    // a query made inside a transaction is passed that transaction, so a plain Kysely instance means "outside".
    registerDirectRunner(db, (on, sql, parameters) => {
      // Kysely's path waits for the connection: another flow's transaction, or the checkpointing thread, holds it.
      if (!on.isTransaction && (group.inTransaction || group.paused)) return undefined;
      const st = database.prepare(sql);
      if (st.reader) return { rows: st.all(parameters) as unknown[] };
      const { changes, lastInsertRowid } = st.run(parameters);
      return { insertId: BigInt(lastInsertRowid), numAffectedRows: BigInt(changes), rows: [] };
    });
  }
  return {
    db,
    dialect: "sqlite",
    sqliteFile: opened && { path: file, dev: opened.dev, ino: opened.ino },
    durable: () => group?.durable() ?? RESOLVED,
    close: async () => {
      clearInterval(optimize);
      group?.flush();
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

const RESOLVED = Promise.resolve();

/** A PostgreSQL setting that breaks DURABILITY=power (startup-errors.ts says it in one line). */
export class DurabilityError extends Error {
  constructor(
    readonly setting: "fsync" | "full_page_writes" | "synchronous_commit",
    readonly value: string,
  ) {
    super(`PostgreSQL runs with ${setting}=${value}`);
  }
}

/**
 * DURABILITY=power on PostgreSQL: an acknowledged commit must be flushed to its disk before the answer, and the files
 * must stay recoverable after a power loss. PostgreSQL decides both: `fsync` and `full_page_writes` on (server-wide),
 * and `synchronous_commit` not `off` for this database and role (`on`, `local`, `remote_write` and `remote_apply` all
 * flush the local WAL first). Checked at start, as the pool's sessions see them; nothing is overridden.
 */
export async function checkPostgresDurability(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<Record<"fsync" | "full_page_writes" | "synchronous_commit", string>>`select
    current_setting('fsync') as fsync,
    current_setting('full_page_writes') as full_page_writes,
    current_setting('synchronous_commit') as synchronous_commit`.execute(db);
  const found = rows[0];
  if (!found) return;
  if (found.fsync !== "on") throw new DurabilityError("fsync", found.fsync);
  if (found.full_page_writes !== "on") throw new DurabilityError("full_page_writes", found.full_page_writes);
  if (found.synchronous_commit === "off") throw new DurabilityError("synchronous_commit", found.synchronous_commit);
}

/**
 * Whether autovacuum is off on the PostgreSQL server. Statements named once per connection keep the plan made the first
 * times they ran, and a plan made on an empty table walks a wrong index until the table is analyzed (ANALYZE replaces
 * it): without autovacuum nothing analyzes (docs/storage.md, "Query plans on PostgreSQL").
 */
export async function postgresAutovacuumOff(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(db);
  return rows[0]?.autovacuum === "off";
}

/**
 * The database's folder could not be created or written: startup-errors.ts says so in one line naming DATA_DIR.
 * `code` is the system's (EROFS, EACCES, ENOTDIR…).
 */
export class DataDirError extends Error {
  readonly code: string;
  constructor(
    readonly folder: string,
    what: string,
    cause: unknown,
  ) {
    const code = (cause as { code?: string } | null)?.code ?? "EIO";
    super(`${what} (${code})`, { cause });
    this.code = code;
  }
}

function flushFolder(folder: string): void {
  const fd = fs.openSync(folder, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates the folder and its missing parents (0700), one level at a time. `mkdirSync(…, { recursive: true })` says
 * ENOENT for a folder under a read-only mount (the parent exists: the real cause is EROFS), and never returns for
 * one under /proc; creating each level ourselves names the level and the real cause.
 */
function createFolders(folder: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(folder); !fs.existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const dir of missing) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      // Another process made it meanwhile (two starts at once): that is what we wanted.
      if ((e as { code?: string }).code === "EEXIST" && fs.statSync(dir).isDirectory()) continue;
      throw new DataDirError(folder, `cannot create the folder ${dir}`, e);
    }
  }
  if (!fs.statSync(folder).isDirectory()) throw new DataDirError(folder, `${folder} is not a folder`, { code: "ENOTDIR" });
}

/** The server's wait for a write lock held by another process, each time (see busy_timeout above). */
const SERVER_BUSY_TIMEOUT_MS = 250;
/** After a wait for the lock ended in SQLITE_BUSY, batches fail at once for this long before waiting again. */
const BUSY_FAIL_FAST_MS = 250;

/** How often the embedded store refreshes its planner statistics (PRAGMA optimize is cheap when nothing changed). */
const OPTIMIZE_EVERY_MS = 10 * 60 * 1000;
/**
 * A WAL this long (frames of 4 KiB, 32 MiB) is started over once the checkpointing thread has copied all but a few of
 * them. Each restart holds the store's queries for the thread's last copy and its three fsyncs (~8 ms on a quiet disk)
 * and empties the writing connection's page cache (another connection wrote): at ~4,000 frames a second (450
 * evaluations/s) once every ~2 s, where 2,048 frames held them every ~500 ms, ~1.6 % of the time, more than a p99 can hide.
 */
const RESTART_AT_FRAMES = 8192;
const RESTART_LAG_FRAMES = 512;
/** After a restart that could not complete (another process reading or writing), the next is asked this much later. */
const RESTART_RETRY_MS = 5_000;
/** WAL pages (4 KiB) after which a commit checkpoints by itself, should the checkpointing thread fall behind. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;
/** Distinct SQL texts kept prepared; `in (?, ?, …)` lists of varying length make a few hundred at most. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * better-sqlite3 behind Kysely prepares every query anew (12 % of the CPU of an evaluation in the bench profile);
 * a statement is reusable, and Kysely runs one query at a time on this connection, so keep them (LRU).
 */
function withStatementCache(sqlite: SQLite.Database, group: GroupCommit | undefined): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  const cached = (sqlText: string): SQLite.Statement => {
    let st = cache.get(sqlText);
    if (st) {
      cache.delete(sqlText);
    } else {
      st = sqlite.prepare(sqlText);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sqlText, st);
    // A write outside any transaction joins the open batch too (it is committed, and acknowledged, with it); a read
    // opens it too, so that the turn takes its locks once, not per statement (docs/decisions/paced-commit-cost.md).
    if (group && !st.reader) group.open();
    else if (group) group.openForRead();
    return st;
  };
  const limited = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      if (!sqlText.endsWith(LIMIT_PARAMETER)) return cached(sqlText);
      let st = limited.get(sqlText);
      if (!st) {
        // As many as the texts (each a statement of the code); bounded as the cache is, for safety.
        if (limited.size >= STATEMENT_CACHE_SIZE) limited.clear();
        st = limitInlined(sqlText, cached);
        limited.set(sqlText, st);
      }
      return st;
    },
  };
}

const LIMIT_PARAMETER = " limit ?";

/**
 * A statement whose LIMIT is a parameter, run with that limit written into its text. With better-sqlite3's SQLite (3.53,
 * built with STAT4) the planner reads a bound LIMIT's value, and such a statement was prepared again at every run: a
 * token's devices cost 17 µs against 6 µs with `limit 17` in the text (docs/decisions/sqlite-limit-literal.md). The hot
 * path's limits are a few constants, so the texts stay few; a limit that is not a small whole number stays a parameter.
 */
export function limitInlined(sqlText: string, prepare: (sqlText: string) => SQLite.Statement): SqliteStatement {
  const base = sqlText.slice(0, -1);
  const pick = (parameters: readonly unknown[]): [SQLite.Statement, readonly unknown[]] => {
    const limit = parameters[parameters.length - 1];
    return typeof limit === "number" && Number.isSafeInteger(limit) && limit >= 0 && limit <= MAX_INLINED_LIMIT
      ? [prepare(base + limit), parameters.slice(0, -1)]
      : [prepare(sqlText), parameters];
  };
  const statement = prepare(sqlText);
  return {
    reader: statement.reader,
    all(parameters) {
      const [st, rest] = pick(parameters);
      return st.all(rest);
    },
    run(parameters) {
      const [st, rest] = pick(parameters);
      return st.run(rest);
    },
    iterate(parameters) {
      const [st, rest] = pick(parameters);
      return st.iterate(rest);
    },
  };
}

/** Limits above this run as a parameter: the statement cache keeps one text per value inlined. */
const MAX_INLINED_LIMIT = 1000;

/**
 * Group commit for the embedded store. A commit writes every page the transaction dirtied to the WAL: about a third
 * of the SQLite time of an evaluation when each one commits alone (bench: 172 µs of 527 µs). Here the transactions
 * of one event-loop turn run as savepoints inside one batch transaction, committed by a setImmediate callback once
 * the turn's requests have run; pages shared by the batch (the tails of time-ordered indexes) are written once.
 *
 * Nothing is acknowledged early: `durable()` resolves only after the batch's COMMIT, and the server waits for it
 * before sending any response (app.ts, onSend). A transaction that fails rolls back to its own savepoint, leaving
 * the batch's other transactions alone. Kysely runs one query or transaction at a time on the connection, so
 * savepoints never interleave.
 */
export class GroupCommit {
  private batch: { done: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  private savepoints = 0;
  private flushWhenIdle = false;
  /** Until then, open() fails at once: another process holds the write lock (see open). */
  private busyUntil = 0;
  /** Flows holding the connection through Kysely (acquire/release): a query, or a transaction from begin to end. */
  private users = 0;
  /** Set while the checkpointing thread is wanted or working on the idle connection; resolved when it is done. */
  private pause: { done: Promise<void>; resume: () => void; started: boolean } | undefined;
  /** No restart is asked before then (one could not complete: another process reading or writing). */
  private restartAfter = 0;

  constructor(
    private readonly sqlite: SQLite.Database,
    /** The checkpointing thread (absent for an in-memory store): it reports progress, and starts the WAL over. */
    private readonly checkpointer?: Checkpointer,
  ) {
    checkpointer?.onProgress((p) => this.walProgress(p));
  }

  /** Starts a batch unless one is open; its commit is scheduled after the current event-loop turn. */
  open(): void {
    if (this.batch) {
      if (this.sqlite.inTransaction) return;
      // SQLite rolled the batch back by itself (an I/O error, a full disk): its writes are gone.
      this.settle(new Error("The store rolled back a batch of writes"));
    }
    // Another process held the write lock through the last wait: fail at once rather than stand still again (the
    // requests of one turn would each wait in turn).
    if (Date.now() < this.busyUntil) throw Object.assign(new Error("database is locked by another process"), { code: "SQLITE_BUSY" });
    // IMMEDIATE: the write lock now, waiting for it under the busy timeout (see TransactionalSqliteDialect).
    try {
      this.sqlite.exec("begin immediate");
    } catch (e) {
      if (/^SQLITE_BUSY/.test(String((e as { code?: unknown }).code))) this.busyUntil = Date.now() + BUSY_FAIL_FAST_MS;
      throw e;
    }
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody may be waiting (a batch of reads-only transactions): an unobserved rejection must not crash the process.
    done.catch(() => {});
    this.batch = { done, resolve, reject };
    setImmediate(() => this.flush());
  }

  /**
   * Before a read outside any transaction: opens the turn's batch, unless another process holds the write lock (the
   * read then runs by itself, as SQLite's own read transaction).
   */
  openForRead(): void {
    if ((this.batch && this.sqlite.inTransaction) || Date.now() < this.busyUntil) return;
    try {
      this.open();
    } catch (e) {
      if (!/^SQLITE_BUSY/.test(String((e as { code?: unknown }).code))) throw e;
    }
  }

  /** Commits the open batch now (also at close), or as soon as the transaction in progress ends. */
  flush(): void {
    if (!this.batch) return;
    // A transaction that awaits something else than the store can span event-loop turns: committing now would commit
    // its first half alone (and a rollback could no longer undo it).
    if (this.savepoints > 0) {
      this.flushWhenIdle = true;
      return;
    }
    if (!this.sqlite.inTransaction) {
      this.settle(new Error("The store rolled back a batch of writes"));
      return;
    }
    try {
      this.sqlite.exec("commit");
      this.settle();
    } catch (e) {
      if (this.sqlite.inTransaction) this.sqlite.exec("rollback");
      this.settle(e);
    }
  }

  durable(): Promise<void> {
    return this.batch?.done ?? RESOLVED;
  }

  /**
   * The WAL starts over from its beginning only when a write begins with every frame of it copied to the database
   * file. The checkpointing thread never gets there under steady writes (frames keep coming while it copies), so the
   * WAL grew to SQLite's fallback and from then on commits on the event loop ran SQLite's own checkpoint, with an
   * fsync of the WAL and one of the database file: commits of 30–60 ms, the p99 at half of saturation
   * (docs/operations.md). Copying the last frames on this connection between batches still ran those fsyncs on the
   * event loop. So once the thread has copied nearly all of a long WAL, the connection is handed to the thread: new
   * queries and transactions wait (asynchronously: the event loop stays free), the open batch is committed, and the
   * thread copies the rest, flushes, and makes the first write of the new WAL (checkpointer.ts) while nothing comes in.
   * Then the queries go on. Durability is SQLite's checkpoint's, as before (docs/decisions/checkpoint-handoff.md).
   */
  walProgress(p: CheckpointProgress): void {
    if (!this.checkpointer || this.pause || Date.now() < this.restartAfter) return;
    if (p.log < RESTART_AT_FRAMES || p.log - p.checkpointed > RESTART_LAG_FRAMES) return;
    let resume!: () => void;
    const done = new Promise<void>((r) => {
      resume = r;
    });
    this.pause = { done, resume, started: false };
    if (this.users === 0) setImmediate(() => this.handOff());
  }

  /** The checkpointing thread is wanted or working: queries wait in acquire(), prepared queries take that path. */
  get paused(): boolean {
    return this.pause !== undefined;
  }

  /** Before a flow uses the connection through Kysely: waits while the checkpointing thread has it. */
  async acquire(): Promise<void> {
    while (this.pause) await this.pause.done;
    this.users++;
  }

  release(): void {
    this.users--;
    if (this.users === 0 && this.pause && !this.pause.started) setImmediate(() => this.handOff());
  }

  private async handOff(): Promise<void> {
    const pause = this.pause;
    if (!pause || pause.started || this.users > 0 || !this.checkpointer) return;
    pause.started = true;
    try {
      // A write outside any transaction (a prepared query) may have opened a batch this turn: commit it now.
      this.flush();
      if (this.batch || this.sqlite.inTransaction) return;
      const outcome = await this.checkpointer.restartWal();
      if (!outcome.restarted) this.restartAfter = Date.now() + RESTART_RETRY_MS;
    } finally {
      this.pause = undefined;
      pause.resume();
    }
  }

  /** A Kysely transaction is open (it holds the connection until it ends). */
  get inTransaction(): boolean {
    return this.savepoints > 0;
  }

  begin(): void {
    this.open();
    this.sqlite.exec(`savepoint tx${++this.savepoints}`);
  }

  commit(): void {
    try {
      this.sqlite.exec(`release tx${this.savepoints}`);
    } finally {
      this.ended();
    }
  }

  rollback(): void {
    const name = `tx${this.savepoints}`;
    try {
      // If SQLite already rolled the whole batch back, there is no savepoint left to return to.
      if (!this.sqlite.inTransaction) return;
      this.sqlite.exec(`rollback to ${name}`);
      this.sqlite.exec(`release ${name}`);
    } finally {
      this.ended();
    }
  }

  private ended(): void {
    if (this.savepoints > 0) this.savepoints--;
    if (this.savepoints === 0 && this.flushWhenIdle) {
      this.flushWhenIdle = false;
      setImmediate(() => this.flush());
    }
  }

  private settle(error?: unknown): void {
    const batch = this.batch;
    this.batch = undefined;
    if (error === undefined) batch?.resolve();
    else batch?.reject(error);
  }
}

/**
 * SQLite has transactional DDL (a CREATE TABLE rolls back like an INSERT), but Kysely's adapter says it has not, so its
 * migrator ran each migration's statements one by one outside any transaction: a crash after the N-th left a
 * half-migrated store that no later start could migrate (`table "settings" already exists`). Saying so makes the
 * migrator run each migration, and its row in tessera_migrations, in one transaction (migrations/index.ts).
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * Transactions begin IMMEDIATE: they take the write lock at once, waiting for it under the busy timeout. A deferred
 * `begin` takes it at the first write, and when another process wrote meanwhile SQLite answers SQLITE_BUSY at once,
 * without waiting: two `tessera migrate` (or a CLI command and a starting server) on one file failed that way.
 */
class TransactionalSqliteDialect extends SqliteDialect {
  constructor(private readonly dialectConfig: SqliteDialectConfig) {
    super(dialectConfig);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  override createDriver(): Driver {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw("begin immediate"));
      }
    })(this.dialectConfig);
  }
}

/** Kysely's SQLite dialect with transactions mapped onto the group commit's savepoints. */
class GroupCommitDialect extends TransactionalSqliteDialect {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly group: GroupCommit,
  ) {
    super({ database });
  }

  override createDriver(): Driver {
    const group = this.group;
    return new (class extends SqliteDriver {
      // The checkpointing thread may be handed the connection between two flows (GroupCommit.walProgress).
      override async acquireConnection(): Promise<DatabaseConnection> {
        await group.acquire();
        try {
          return await super.acquireConnection();
        } catch (e) {
          group.release();
          throw e;
        }
      }
      override async releaseConnection(): Promise<void> {
        try {
          await super.releaseConnection();
        } finally {
          group.release();
        }
      }
      override async beginTransaction(_c: DatabaseConnection): Promise<void> {
        group.begin();
      }
      override async commitTransaction(_c: DatabaseConnection): Promise<void> {
        group.commit();
      }
      override async rollbackTransaction(_c: DatabaseConnection): Promise<void> {
        group.rollback();
      }
    })({ database: this.database });
  }
}
