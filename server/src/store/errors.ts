// What a store error means to the rest of the server (docs/operations.md): "the store is unavailable, retry" (a dropped or
// refused connection, a timeout, a failover to a read-only standby, a full disk, a missing schema) as opposed to a bug.
// The HTTP layer answers the first with 503 and Retry-After; metrics count both by a short, stable code.

/** PostgreSQL SQLSTATEs (and classes) that say the database cannot serve now, not that the query is wrong. */
const PG_UNAVAILABLE = [
  /^08/, // connection exception
  /^53/, // insufficient resources: disk full, out of memory, too many connections
  /^57P0[1-5]$/, // admin or crash shutdown, cannot connect now, database dropped, idle session timeout
  /^57014$/, // query canceled: statement_timeout
  /^25006$/, // read-only transaction: a failover landed on a standby
  /^40001$|^40P01$/, // serialization failure, deadlock: retrying succeeds
  /^3D000$/, // the database does not exist (dropped, or a wrong DATABASE_URL)
  /^42P01$/, // a table is missing: the database was re-created empty and not migrated
];

/** Socket errors of a connection to the store. */
const NETWORK = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** SQLite result codes (better-sqlite3 `code`) that say the file cannot be written now. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|PROTOCOL|NOTADB|CORRUPT)/;

/** pg and Kysely say a connection was lost only in their messages. */
const LOST_CONNECTION =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|No answer from PostgreSQL|connection has been discarded|The store rolled back a batch/;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** True when `err` says the store cannot serve now (retry later) rather than that the request or the code is wrong. */
export function isStoreUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (code) {
    if (NETWORK.has(code) || SQLITE_UNAVAILABLE.test(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE.some((re) => re.test(code))) return true;
  }
  return err instanceof Error && LOST_CONNECTION.test(err.message);
}

/** A short label for metrics: the SQLSTATE, SQLite or socket code, else "connection" or "other". */
export function storeErrorCode(err: unknown): string {
  const code = codeOf(err);
  if (code && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
  return err instanceof Error && LOST_CONNECTION.test(err.message) ? "connection" : "other";
}
