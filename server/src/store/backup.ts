// `tessera backup FILE` (docs/operations.md#backup-and-restore): a consistent copy of the store taken while the server
// runs. A plain copy of the embedded store's file is not one: the newest commits sit in the -wal file beside it, and a
// `cp` under load lost 19 of 559 acknowledged evaluations. The copy is written beside FILE and renamed onto it once
// complete and flushed, so FILE is never half a backup.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";

/** A backup that could not be made: one line saying why and what to do (the CLI prints it). */
export class BackupError extends Error {}

export interface BackupReport {
  file: string;
  bytes: number;
  /** How the copy was made, for the CLI's line. */
  method: string;
}

/** The file is written under another name first, in FILE's folder (a rename within one file system is atomic). */
function partialName(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
}

function checkTarget(file: string, force: boolean): void {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) throw new BackupError(`the folder ${dir} does not exist: create it or choose another FILE`);
  if (fs.existsSync(file) && !force) throw new BackupError(`${file} exists: choose another FILE, or pass --force to replace it`);
}

/** Flushes the file and its folder entry to the disk, so a backup that was reported done survives a power loss. */
function flush(file: string): void {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const dir = fs.openSync(path.dirname(file), "r");
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

function publish(partial: string, file: string): number {
  fs.chmodSync(partial, 0o600);
  flush(partial);
  fs.renameSync(partial, file);
  flush(file);
  return fs.statSync(file).size;
}

/**
 * The embedded store: `VACUUM INTO` a new file. It reads one snapshot (a single read transaction, which in WAL mode
 * never blocks the server's writes), so the copy holds every transaction committed before it began and none after.
 * Not better-sqlite3's `backup()`: SQLite's online backup starts over whenever another connection writes to the source,
 * and under a server's steady writes it need never finish. The copy is checked (`quick_check`) before it is published.
 */
export function backupSqlite(source: string, file: string, opts: { force?: boolean } = {}): BackupReport {
  if (!fs.existsSync(source)) throw new BackupError(`no database at ${source}: set DATA_DIR to the folder of the store to back up`);
  checkTarget(file, opts.force ?? false);
  const partial = partialName(file);
  fs.rmSync(partial, { force: true });
  try {
    const db = new SQLite(source, { fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      db.prepare("vacuum into ?").run(partial);
    } finally {
      db.close();
    }
    const copy = new SQLite(partial, { readonly: true, fileMustExist: true });
    try {
      const check = copy.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new BackupError(`the copy failed its integrity check (${String(check)}): the source may be damaged`);
    } finally {
      copy.close();
    }
    return { file, bytes: publish(partial, file), method: "SQLite VACUUM INTO, one consistent snapshot" };
  } catch (e) {
    fs.rmSync(partial, { force: true });
    if (e instanceof BackupError) throw e;
    const code = (e as { code?: string }).code ?? "error";
    throw new BackupError(`could not copy ${source} to ${file} (${code}: ${(e as Error).message})`);
  }
}

/** DATABASE_URL without its password (which goes to pg_dump in PGPASSWORD, never on a command line `ps` shows). */
function withoutPassword(url: string): { url: string; password?: string } {
  const u = new URL(url);
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  u.password = "";
  return { url: u.toString(), password };
}

/** The pg_dump command this backup runs, as an operator would type it (the password left to PGPASSWORD or ~/.pgpass). */
export function pgDumpCommand(databaseUrl: string, file: string): string {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  return `pg_dump --format=custom --file=${quote(file)} --dbname=${quote(withoutPassword(databaseUrl).url)}`;
}

/**
 * PostgreSQL: pg_dump, PostgreSQL's own tool, in its custom format (pg_restore reads it). It dumps one snapshot of
 * the database (a repeatable-read transaction), while the instances keep writing. It must be as new as the server.
 * Without pg_dump on the PATH this fails with the exact command to run where it is installed.
 */
export async function backupPostgres(
  databaseUrl: string,
  file: string,
  opts: { force?: boolean; pgDump?: string } = {},
): Promise<BackupReport> {
  checkTarget(file, opts.force ?? false);
  const partial = partialName(file);
  const { url, password } = withoutPassword(databaseUrl);
  const stderr: string[] = [];
  const outcome = await new Promise<{ code: number | null; missing?: boolean }>((resolve) => {
    const child = spawn(opts.pgDump ?? "pg_dump", ["--format=custom", `--file=${partial}`, `--dbname=${url}`], {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr.on("data", (d: Buffer) => stderr.push(d.toString()));
    child.on("error", (e: NodeJS.ErrnoException) => resolve({ code: null, missing: e.code === "ENOENT" }));
    child.on("close", (code) => resolve({ code }));
  });
  if (outcome.missing)
    throw new BackupError(
      `pg_dump is not on the PATH: install PostgreSQL's client tools (the server's version or newer), or run where they are: ${pgDumpCommand(databaseUrl, file)}`,
    );
  if (outcome.code !== 0) {
    fs.rmSync(partial, { force: true });
    const last = stderr.join("").trim().split("\n").pop() ?? `exit code ${outcome.code}`;
    throw new BackupError(`pg_dump failed: ${last.replace(/^pg_dump: (error: )?/, "")}`);
  }
  return { file, bytes: publish(partial, file), method: "pg_dump --format=custom, one consistent snapshot" };
}
