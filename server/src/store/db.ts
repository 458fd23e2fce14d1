// Opens the store: SQLite (better-sqlite3, WAL) under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
// One Kysely query layer serves both; nothing outside server/src/store writes SQL.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect } from "kysely";
import pg from "pg";
import { startCheckpointer } from "./checkpointer.js";
import type { Database } from "./schema.js";

export type Dialect = "sqlite" | "postgres";

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// int8 (bigint) columns hold millisecond timestamps and counters that fit in a double: read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export interface StoreOptions {
  databaseUrl?: string;
  sqlitePath?: string;
  poolSize?: number;
}

export function openStore(opts: StoreOptions): Store {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 16 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: "postgres", close: () => db.destroy() };
  }
  const file = opts.sqlitePath ?? path.resolve("data", "tessera.db");
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL with synchronous=NORMAL survives a process crash (kill -9) without losing a committed write;
  // only a power loss can drop the last commits. busy_timeout lets the CLI and the server share the file.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // The hot path's indexes stay in memory: a 32 MiB page cache (default 2 MiB) saves a read() per page missed;
  // sorts of small result sets (ORDER BY … LIMIT) stay in memory too. (No mmap: it would count the file in RSS.)
  sqlite.pragma("cache_size = -32768");
  sqlite.pragma("temp_store = MEMORY");
  // Query plans need statistics: without them SQLite may walk a whole environment's rows through the wrong index.
  // SQLite's advice for long-lived connections: optimize at open (0x10002: look at every table) and periodically.
  // analysis_limit bounds each ANALYZE to a sample, so a refresh costs milliseconds whatever the table size.
  sqlite.pragma("analysis_limit = 1000");
  sqlite.pragma("optimize = 0x10002");
  const optimize = setInterval(() => {
    try {
      sqlite.pragma("optimize");
    } catch {
      // Busy or closing: the next round will do it.
    }
  }, OPTIMIZE_EVERY_MS);
  optimize.unref();
  // Checkpoints run in a worker thread (checkpointer.ts); SQLite's own stays as a fallback at a larger WAL size.
  let stopCheckpointer: (() => Promise<void>) | undefined;
  if (file !== ":memory:") {
    sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    stopCheckpointer = startCheckpointer(file);
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    db,
    dialect: "sqlite",
    close: async () => {
      clearInterval(optimize);
      await stopCheckpointer?.();
      await db.destroy();
    },
  };
}

/** How often the embedded store refreshes its planner statistics (PRAGMA optimize is cheap when nothing changed). */
const OPTIMIZE_EVERY_MS = 10 * 60 * 1000;
/** WAL pages (4 KiB) after which a commit checkpoints by itself, should the checkpointing thread fall behind. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;
/** Distinct SQL texts kept prepared; `in (?, ?, …)` lists of varying length make a few hundred at most. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * better-sqlite3 behind Kysely prepares every query anew (12 % of the CPU of an evaluation in the bench profile);
 * a statement is reusable, and Kysely runs one query at a time on this connection, so keep them (LRU).
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      let st = cache.get(sqlText);
      if (st) {
        cache.delete(sqlText);
      } else {
        st = sqlite.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sqlText, st);
      return st;
    },
  };
}
