// /readyz tells the truth (docs/operations.md): 503 when the store cannot be written to (read-only, a full disk), has lost its
// schema (an empty re-created database, a replaced file) or does not answer; 200 again once it can — on both stores.
import fs from "node:fs";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/db.js";
import { StoreReadiness } from "../src/store/readiness.js";
import { ADMIN_URL, describeStores, PG_AVAILABLE, startTestApp, type TestApp } from "./helpers.js";
import { freePort } from "./server-process.js";

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const dbName = (t: TestApp) => new URL(t.services.config.DATABASE_URL as string).pathname.slice(1);
const terminate = (t: TestApp) =>
  admin((c) =>
    c.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [dbName(t)]),
  );

async function ready(t: TestApp): Promise<{ status: number; message?: string }> {
  const r = await t.app.inject({ method: "GET", url: "/readyz" });
  return { status: r.statusCode, message: (r.json() as { error?: { message: string } }).error?.message };
}

/** The pool may hand out a connection opened before the change once more: the answer settles within a few probes. */
async function settlesTo(t: TestApp, status: number): Promise<{ status: number; message?: string }> {
  let last = await ready(t);
  for (let i = 0; i < 20 && last.status !== status; i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await ready(t);
  }
  return last;
}

describeStores("/readyz on %s", (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("answers 200 for a migrated store that takes writes", async () => {
    t = await startTestApp(kind);
    expect(await ready(t)).toEqual({ status: 200, message: undefined });
  });

  it("answers 503 for a read-only store, and 200 once it takes writes again", async () => {
    t = await startTestApp(kind);
    const app = t;
    if (kind === "sqlite") {
      await sql`pragma query_only = 1`.execute(app.services.store.db);
    } else {
      // What a failover to a standby looks like to the pool: new sessions that refuse writes.
      await admin((c) => c.query(`alter database ${dbName(app)} set default_transaction_read_only = on`));
      await terminate(app);
    }
    const refused = await settlesTo(app, 503);
    expect(refused.status).toBe(503);
    expect(refused.message).toMatch(/^Not ready/);
    if (kind === "sqlite") await sql`pragma query_only = 0`.execute(app.services.store.db);
    else {
      await admin((c) => c.query(`alter database ${dbName(app)} reset default_transaction_read_only`));
      await terminate(app);
    }
    expect((await settlesTo(app, 200)).status).toBe(200);
  });

  it("answers 503 when the database was re-created empty under the running server", async () => {
    t = await startTestApp(kind);
    const app = t;
    if (kind === "sqlite") {
      const file = app.services.config.sqlitePath;
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
      new SQLite(file).close();
      const r = await ready(app);
      expect(r.status).toBe(503);
      expect(r.message).toMatch(/removed or replaced/);
    } else {
      const name = dbName(app);
      await admin(async (c) => {
        await c.query(`drop database ${name} with (force)`);
        await c.query(`create database ${name}`);
      });
      const r = await settlesTo(app, 503);
      expect(r.status).toBe(503);
      expect(r.message).toMatch(/not migrated|failed/);
    }
  });
});

describe("/readyz on sqlite with a full disk", () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("answers 503 when the database's disk has less free space than READY_MIN_FREE_DISK_MB", async () => {
    // More than any test machine has free: the disk counts as full.
    t = await startTestApp("sqlite", { READY_MIN_FREE_DISK_MB: "10000000" });
    const r = await ready(t);
    expect(r.status).toBe(503);
    expect(r.message).toMatch(/MiB free/);
  });
});

describe.skipIf(!PG_AVAILABLE)("readiness of an unreachable PostgreSQL", () => {
  it("fails within its deadline with the store's error", async () => {
    const port = await freePort();
    const store = openStore({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/nowhere`, timeouts: { connectMs: 500 } });
    try {
      const readiness = new StoreReadiness(store, { deadlineMs: 1000, minFreeBytes: 0 });
      await expect(readiness.check()).rejects.toMatchObject({ code: "ECONNREFUSED" });
    } finally {
      await store.close();
    }
  });
});
