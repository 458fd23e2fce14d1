// Migrated template stores: the migrations run once per store for a given set of migration files, and every test that
// needs a migrated store gets a copy of that template (a SQLite file copy, a PostgreSQL CREATE DATABASE … TEMPLATE)
// instead of migrating a new database itself (about a quarter of a second on PostgreSQL on a quiet machine, several on a
// loaded one). Tests of the migrations themselves start from an empty store (helpers.ts freshDatabase).
//
// A template is named by a hash of what makes the migrated schema (the migration files and the store's opening code),
// so an edited or added migration makes a new one and no test ever gets a stale schema. global-setup.ts makes the
// templates before the first test and drops those of other hashes; a test file that finds its template missing (a run
// of another checkout dropped it, .tmp was cleaned) makes it again.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { openStore } from "../src/store/db.js";
import { migrate } from "../src/store/migrations/index.js";

const SERVER = path.resolve(import.meta.dirname, "..");
/** Where the SQLite templates live: per checkout, in the ignored scratch folder. */
const SQLITE_DIR = path.resolve(SERVER, "..", ".tmp", "test-templates");
const PG_PREFIX = "tessera_template_";

/** A hash of the migration files and the store's opening code (db.ts sets the pragmas a SQLite file keeps). */
export function schemaHash(): string {
  const hash = createHash("sha256");
  const dir = path.join(SERVER, "src", "store", "migrations");
  const files = fs
    .readdirSync(dir)
    .sort()
    .map((f) => path.join(dir, f));
  for (const file of [...files, path.join(SERVER, "src", "store", "db.ts")]) {
    hash.update(`${path.basename(file)}\0`);
    hash.update(fs.readFileSync(file));
  }
  return hash.digest("hex").slice(0, 16);
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

const exists = async (admin: pg.Client, name: string) =>
  (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1;

/**
 * The PostgreSQL template of the current migrations, made when missing. Made under an advisory lock (the workers of a
 * run, and runs of other checkouts, may ask at once) under another name, then renamed: a template with the final name
 * is always complete and nobody is connected to it, which CREATE DATABASE … TEMPLATE requires.
 */
export async function pgTemplate(adminUrl: string, hash = schemaHash()): Promise<string> {
  const name = `${PG_PREFIX}${hash}`;
  return withAdmin(adminUrl, async (admin) => {
    if (await exists(admin, name)) return name;
    const lock = Number.parseInt(hash.slice(0, 12), 16);
    await admin.query("select pg_advisory_lock($1)", [lock]);
    try {
      if (await exists(admin, name)) return name;
      const building = `${name}_new`;
      // Left over by a run killed while building.
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const store = openStore({ databaseUrl: databaseUrl(adminUrl, building) });
      try {
        await migrate(store.db);
      } finally {
        await store.close();
      }
      await admin.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await admin.query("select pg_advisory_unlock($1)", [lock]);
    }
  });
}

/** The template this process last copied, by hash: its existence is checked once, not before every copy. */
const knownPgTemplates = new Map<string, string>();

/** A new PostgreSQL database `name`, a copy of the migrated template. */
export async function clonePg(adminUrl: string, name: string): Promise<void> {
  // Hashed at each copy: in watch mode a migration edited since the last copy must give a new template.
  const hash = schemaHash();
  let template = knownPgTemplates.get(hash) ?? (await pgTemplate(adminUrl, hash));
  for (let attempt = 1; ; attempt++) {
    try {
      await withAdmin(adminUrl, (admin) => admin.query(`create database ${name} template ${template}`));
      knownPgTemplates.set(hash, template);
      return;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (attempt >= 20) throw e;
      // 3D000: the template was dropped since (another checkout's run, with other migrations, cleans up): make it again.
      if (code === "3D000") template = await pgTemplate(adminUrl, hash);
      // 55006: someone is connected to the template (an autovacuum worker, which PostgreSQL asks to leave): wait.
      else if (code === "55006") await new Promise((r) => setTimeout(r, 100 * attempt));
      else throw e;
    }
  }
}

/** Drops the PostgreSQL templates of other migrations (a template being copied right now is dropped after the copy). */
export async function dropOtherPgTemplates(adminUrl: string, hash = schemaHash()): Promise<void> {
  await withAdmin(adminUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>("select datname from pg_database where datname ~ $1", [
      `^${PG_PREFIX}[0-9a-f]{16}$`,
    ]);
    for (const { datname } of rows) {
      if (datname === `${PG_PREFIX}${hash}`) continue;
      // Fails while another run builds or copies it: it is dropped by a later run.
      await admin.query(`drop database if exists ${datname}`).catch(() => {});
    }
  });
}

/**
 * The SQLite template file of the current migrations, made when missing: migrated in a file of its own, checkpointed
 * into the main file (a copy must not need its -wal), then renamed into place, so a reader never sees it half made.
 */
export async function sqliteTemplate(hash = schemaHash()): Promise<string> {
  const file = path.join(SQLITE_DIR, `tessera-${hash}.db`);
  if (fs.existsSync(file)) return file;
  const building = `${file}.${process.pid}-${randomBytes(4).toString("hex")}`;
  const store = openStore({ sqlitePath: building });
  try {
    await migrate(store.db);
  } finally {
    await store.close();
  }
  const db = new SQLite(building);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${building}${suffix}`, { force: true });
  fs.renameSync(building, file);
  return file;
}

/** A copy of the migrated SQLite template at `target` (the file keeps the template's 0600 mode). */
export async function cloneSqlite(target: string): Promise<void> {
  const template = await sqliteTemplate();
  try {
    fs.copyFileSync(template, target, fs.constants.COPYFILE_FICLONE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    // Dropped since (a run after a migration changed): make it again.
    fs.copyFileSync(await sqliteTemplate(), target, fs.constants.COPYFILE_FICLONE);
  }
}

/** Removes the SQLite templates of other migrations, and build files left by killed runs. */
export function dropOtherSqliteTemplates(hash = schemaHash()): void {
  if (!fs.existsSync(SQLITE_DIR)) return;
  for (const f of fs.readdirSync(SQLITE_DIR)) {
    if (f === `tessera-${hash}.db`) continue;
    const full = path.join(SQLITE_DIR, f);
    // A build file younger than a minute may be another worker's, still being written.
    if (f.startsWith(`tessera-${hash}.db.`) && Date.now() - fs.statSync(full).mtimeMs < 60_000) continue;
    fs.rmSync(full, { force: true });
  }
}
