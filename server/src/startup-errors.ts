// A start that fails on a setting says so in one line, naming the setting and what to do, with no stack trace
// (docs/projects.md): an unreachable or refusing database, a database folder that cannot be written, a store migrated by a
// newer release or locked by another process, a port in use. The
// settings zod can judge alone (TRUST_PROXY, SMTP_URL, data files…) are refused earlier, by config.ts.
import type { Config } from "./config.js";
import { DataDirError, DurabilityError } from "./store/db.js";
import { isStoreUnavailable } from "./store/errors.js";
import { NewerSchemaError } from "./store/migrations/index.js";

/** What a system error creating the database's folder means, in the operator's words. */
const DATA_DIR_CAUSES: Record<string, string> = {
  EROFS: "its disk is mounted read-only",
  EACCES: "the server's user may not write there",
  EPERM: "the server's user may not write there",
  ENOTDIR: "part of the path is a file, not a folder",
  ENOENT: "a parent folder cannot be created there",
  ENOSPC: "its disk is full",
};

const codeOf = (err: unknown) => (err as { code?: unknown } | null)?.code;

/** Where DATABASE_URL points, without its password. */
function databaseAt(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
}

/** The one line for an error of a start caused by a setting, or undefined for any other error (a bug: keep its stack). */
export function describeStartupError(err: unknown, config: Config): string | undefined {
  const code = codeOf(err);
  const reason = typeof code === "string" ? code : err instanceof Error ? err.message : String(err);
  if (code === "EADDRINUSE")
    return `Invalid setting PORT: ${config.PORT} is already in use on ${config.host}: stop what listens there, or set another PORT (or HOST)`;
  if (code === "EADDRNOTAVAIL")
    return `Invalid setting HOST: ${config.host} is not an address of this machine: set HOST to one of its addresses`;
  if (code === "EACCES" && (err as { syscall?: string }).syscall === "listen")
    return `Invalid setting PORT: listening on ${config.PORT} needs privileges: use a port above 1023 (a proxy can face port 80/443)`;
  if (err instanceof NewerSchemaError) {
    const where = config.DATABASE_URL ? `PostgreSQL at ${databaseAt(config.DATABASE_URL)}` : config.sqlitePath;
    return `Cannot use ${where}: ${err.message}`;
  }
  if (err instanceof DurabilityError) {
    const fix =
      err.setting === "synchronous_commit"
        ? "ALTER DATABASE … SET synchronous_commit = on (or in postgresql.conf)"
        : `turn ${err.setting} on in postgresql.conf`;
    return `Invalid setting DURABILITY: power needs PostgreSQL to flush every commit, but ${err.message}${config.DATABASE_URL ? ` at ${databaseAt(config.DATABASE_URL)}` : ""}: ${fix}, or set DURABILITY=process`;
  }
  if (config.DATABASE_URL) {
    const at = databaseAt(config.DATABASE_URL);
    if (code === "28P01" || code === "28000")
      return `Invalid setting DATABASE_URL: PostgreSQL at ${at} refused the login (${code}): check the user and password in DATABASE_URL`;
    if (code === "3D000")
      return `Invalid setting DATABASE_URL: the database ${at} does not exist: create it (createdb) or fix DATABASE_URL`;
    if (code === "53300")
      return `Invalid setting DATABASE_POOL_SIZE: PostgreSQL at ${at} has no connection left (53300, too many clients): keep instances × DATABASE_POOL_SIZE (${config.DATABASE_POOL_SIZE}) below its max_connections, or raise max_connections`;
    if (isStoreUnavailable(err) || code === "ENOTFOUND")
      return `Invalid setting DATABASE_URL: cannot reach PostgreSQL at ${at} (${reason}): check that it runs and accepts connections from here, and that DATABASE_URL is right`;
    return undefined;
  }
  if (err instanceof DataDirError)
    return `Invalid setting DATA_DIR: ${err.message}: make DATA_DIR a writable folder (${DATA_DIR_CAUSES[err.code] ?? "check its path and permissions"})`;
  if (typeof code === "string" && /^SQLITE_BUSY/.test(code))
    return `Cannot use ${config.sqlitePath}: another process holds its write lock (${code}): run one server per DATA_DIR, and let other tessera commands on it finish`;
  if (typeof code === "string" && (/^SQLITE_(CANTOPEN|READONLY|IOERR)/.test(code) || code === "EACCES" || code === "EROFS"))
    return `Invalid setting DATA_DIR: cannot write the database ${config.sqlitePath} (${reason}): make DATA_DIR a writable folder`;
  return undefined;
}
