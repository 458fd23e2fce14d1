// Opens the store: SQLite (better-sqlite3, WAL) under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
// One Kysely query layer serves both; nothing outside server/src/store writes SQL.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: "sqlite", close: () => db.destroy() };
}
