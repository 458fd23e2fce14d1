// Migrators started together never crash (docs/storage.md#migrations): one migrates, the others wait and then find
// the schema up to date — PostgreSQL under an advisory lock taken before anything touches the schema, SQLite under its
// write lock. Two development servers starting together on an empty store make one default project. A release older
// than the store's schema stops with one line saying what to do, not Kysely's "corrupted migrations" stack trace.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/db.js";
import { MIGRATION_NAMES, migrate } from "../src/store/migrations/index.js";
import { describeStores, freshDatabase, PG_AVAILABLE, type StoreKind, type TestDatabase } from "./helpers.js";
import { assetsBuiltOnce, ROOT, runCli, type ServerProcess, startServer } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");

/** The bundles and the server's own build (any `tessera` command makes it when stale, on stderr): before the runs. */
async function builtOnce(): Promise<void> {
  await assetsBuiltOnce();
  await run(process.execPath, [BIN, "--version"], { cwd: ROOT });
}
/** Kysely's migration lock key on PostgreSQL, which migrate() takes first (store/migrations/index.ts). */
const LOCK_KEY = "3853314791062309107";

async function tessera(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", LOG_LEVEL: "warn", BOOTSTRAP_PROJECT: "0" };
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...base, HOST: "127.0.0.1", PORT: "0", ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

const storeOf = (kind: StoreKind, db: TestDatabase) =>
  openStore(kind === "sqlite" ? { sqlitePath: path.join(db.env.DATA_DIR as string, "tessera.db") } : { databaseUrl: db.env.DATABASE_URL });

async function appliedIn(kind: StoreKind, db: TestDatabase): Promise<string[]> {
  const store = storeOf(kind, db);
  try {
    const rows = await store.db
      .selectFrom("tessera_migrations" as never)
      .select("name" as never)
      .execute();
    return (rows as Array<{ name: string }>).map((r) => r.name).sort();
  } finally {
    await store.close();
  }
}

describe.skipIf(!PG_AVAILABLE)("migrations on PostgreSQL started together", () => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it("wait for the migration lock, as long as it takes, before touching the schema, then migrate once it is free", async () => {
    db = await freshDatabase("postgres");
    const holder = new pg.Client({ connectionString: db.env.DATABASE_URL });
    await holder.connect();
    await holder.query(`select pg_advisory_lock(${LOCK_KEY})`);
    // Requests' statements are bounded (here 0.5 s, and the client gives a silent one up 2 s later): the migration's
    // connection is not, since waiting for another instance's migration may take longer.
    const store = openStore({ databaseUrl: db.env.DATABASE_URL, timeouts: { statementMs: 500 } });
    try {
      let finished = false;
      const migrating = migrate(store.db).then((r) => {
        finished = true;
        return r;
      });
      // The migrator is waiting on the lock: it has not even created its bookkeeping tables. (Kysely created them
      // before its lock; a catalog read racing another migrator's DDL was the 42703 of 1 start in 30.)
      const waiting = async () =>
        (
          await holder.query(
            "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
          )
        ).rows[0].n;
      for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await waiting()).toBe(1);
      const tables = await holder.query("select to_regclass('tessera_migrations') as t");
      expect(tables.rows[0].t).toBeNull();
      // Past the client's deadline for a request (2.5 s here), still waiting.
      await new Promise((r) => setTimeout(r, 3_500));
      expect(finished).toBe(false);
      expect(await waiting()).toBe(1);
      await holder.query(`select pg_advisory_unlock(${LOCK_KEY})`);
      expect((await migrating).applied).toEqual([...MIGRATION_NAMES].sort());
    } finally {
      await holder.end();
      await store.close();
    }
  });

  it("sixteen migrators at once on an empty database: every one succeeds, the schema is applied once", async () => {
    db = await freshDatabase("postgres");
    const stores = Array.from({ length: 16 }, () => storeOf("postgres", db!));
    try {
      const reports = await Promise.all(stores.map((s) => migrate(s.db)));
      const applied = reports.flatMap((r) => r.applied);
      expect(applied.sort()).toEqual([...MIGRATION_NAMES].sort());
    } finally {
      for (const s of stores) await s.close();
    }
    expect(await appliedIn("postgres", db)).toEqual([...MIGRATION_NAMES].sort());
  });
});

describe("migrations on SQLite started together", () => {
  let db: TestDatabase | undefined;
  beforeAll(() => builtOnce());
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it("tessera migrate waits for a write lock held longer than the busy timeout, then migrates", async () => {
    db = await freshDatabase("sqlite");
    const file = path.join(db.env.DATA_DIR as string, "tessera.db");
    // Another process's long write transaction (a migration of a large table, an operator's sqlite3 shell).
    const holder = new SQLite(file);
    holder.pragma("journal_mode = WAL");
    holder.exec("create table held (x)");
    holder.exec("begin immediate");
    holder.exec("insert into held values (1)");
    const migrating = tessera(["migrate"], db.env);
    // Past the CLI's 5-s busy timeout: the deferred begin failed at once, the busy wait then ended in SQLITE_BUSY.
    await new Promise((r) => setTimeout(r, 6_500));
    holder.exec("commit");
    holder.close();
    const r = await migrating;
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Applied: 001-core/);
    expect(await appliedIn("sqlite", db)).toEqual([...MIGRATION_NAMES].sort());
  });

  it("six tessera migrate at once on a new file: each exits 0, the schema is applied once", async () => {
    db = await freshDatabase("sqlite");
    const results = await Promise.all(Array.from({ length: 6 }, () => tessera(["migrate"], db!.env)));
    for (const r of results) {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
    }
    const applied = results.flatMap((r) => (/^Applied: (.*)$/m.exec(r.stdout)?.[1] ?? "").split(", ").filter(Boolean));
    expect(applied.sort()).toEqual([...MIGRATION_NAMES].sort());
  });
});

describeStores("two development servers started together on an empty %s store", (kind) => {
  let db: TestDatabase | undefined;
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop();
    await db?.drop();
    db = undefined;
  });

  it("make one default project between them", async () => {
    db = await freshDatabase(kind);
    const env = { ...db.env, NODE_ENV: "development", BOOTSTRAP_PROJECT: "1", LOG_LEVEL: "warn" };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    const projects = JSON.parse(await runCli(db.env, ["projects", "list", "--json"])) as Array<{ name: string }>;
    expect(projects.map((p) => p.name)).toEqual(["Default project"]);
    // The one that made it printed its keys; the other printed none.
    const printed = servers.filter((s) => s.stdout().includes("Created a first project"));
    expect(printed).toHaveLength(1);
  });
});

describeStores("an older release on a %s store migrated by a newer one", (kind) => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it("stops serve and migrate with one line naming the unknown migration and what to do", async () => {
    await builtOnce();
    db = await freshDatabase(kind);
    expect((await tessera(["migrate"], db.env)).code).toBe(0);
    const store = storeOf(kind, db);
    await store.db
      .insertInto("tessera_migrations" as never)
      .values({ name: "99-from-a-newer-release", timestamp: new Date().toISOString() } as never)
      .execute();
    await store.close();
    for (const cmd of ["migrate", "serve"]) {
      const r = await tessera([cmd], db.env);
      const lines = r.stderr.split("\n").filter((l) => l.trim());
      expect(r.code, r.stderr).not.toBe(0);
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^Cannot use .*: the database was migrated by a newer Tessera \(migration 99-from-a-newer-release\): run that release or a later one, or restore a backup/,
      );
      expect(r.stderr).not.toMatch(/corrupted migrations|\n\s+at /);
    }
  });

  it("the honest look-alike: a store this release migrated starts as before", async () => {
    await builtOnce();
    db = await freshDatabase(kind);
    expect((await tessera(["migrate"], db.env)).code).toBe(0);
    const again = await tessera(["migrate"], db.env);
    expect(again).toMatchObject({ code: 0, stdout: "Already up to date\n", stderr: "" });
  });
});
