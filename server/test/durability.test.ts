// DURABILITY (docs/storage.md#durability): `process` survives the server process crashing, `power` also an OS crash
// or a power loss. On SQLite `power` is synchronous=FULL: the WAL is flushed before a batch is acknowledged (seen here
// with strace: a flush of the WAL per acknowledged evaluation sent one at a time, none in `process` mode between
// checkpoints). On PostgreSQL `power` refuses to start on a database whose commits are not flushed
// (synchronous_commit=off), in one line; `process` leaves PostgreSQL's settings as they are.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_URL,
  describeStores,
  fakeComponents,
  freshDatabase,
  PG_AVAILABLE,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from "./helpers.js";
import { assetsBuiltOnce, createProjectCli, freePort, ROOT } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");
const STRACE = ["/usr/bin/strace", "/bin/strace"].find((p) => fs.existsSync(p));

describeStores("the durability setting on %s", (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  // Registered on that store only (nothing to run on the other).
  if (kind === "sqlite")
    it("power flushes every commit (synchronous=FULL); process writes it to the WAL only (NORMAL)", async () => {
      t = await startTestApp(kind, { DURABILITY: "power" });
      const full = await sql<{ synchronous: number }>`pragma synchronous`.execute(t.services.store.db);
      expect(full.rows[0]?.synchronous).toBe(2);
      await t.close();
      t = await startTestApp(kind);
      const normal = await sql<{ synchronous: number }>`pragma synchronous`.execute(t.services.store.db);
      expect(normal.rows[0]?.synchronous).toBe(1);
    });

  // Registered on that store only (nothing to run on the other).
  if (kind === "postgres")
    it("power starts on a database that flushes its commits, and evaluates", async () => {
      t = await startTestApp(kind, { DURABILITY: "power" });
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        payload: { client_id: t.clientId, user: "u1", signals: { components: fakeComponents("u1") } },
      });
      expect(r.statusCode, r.body).toBe(200);
    });
});

/** `tessera serve` with these settings: its exit code and stderr (a server that starts is stopped once ready). */
async function serveOnce(env: Record<string, string>): Promise<{ code: number | string; stderr: string; started: boolean }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, "serve"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "test",
      LOG_LEVEL: "warn",
      BOOTSTRAP_PROJECT: "0",
      HOST: "127.0.0.1",
      PORT: String(port),
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | string>((r) => child.once("exit", (code, signal) => r(code ?? signal ?? "?")));
  let started = false;
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) {
        started = true;
        child.kill("SIGTERM");
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { code: await exited, stderr, started };
}

describe.skipIf(!PG_AVAILABLE)("DURABILITY=power on a PostgreSQL database with synchronous_commit=off", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    await assetsBuiltOnce();
    await run(process.execPath, [BIN, "--version"], { cwd: ROOT });
    db = await freshDatabase("postgres");
    const name = new URL(db.env.DATABASE_URL as string).pathname.slice(1);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`alter database ${name} set synchronous_commit = off`);
    await admin.end();
    return () => db.drop();
  });

  it("stops the start with one line naming DURABILITY, the setting and the fix", async () => {
    const r = await serveOnce({ ...db.env, DURABILITY: "power" });
    const lines = r.stderr.split("\n").filter((l) => l.trim());
    expect(r.started).toBe(false);
    expect(r.code).toBe(1);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Invalid setting DURABILITY: power needs PostgreSQL to flush every commit, but PostgreSQL runs with synchronous_commit=off at 127\.0\.0\.1:5432\/tessera_test_\w+: ALTER DATABASE … SET synchronous_commit = on \(or in postgresql\.conf\), or set DURABILITY=process$/,
    );
  });

  it("the look-alike: DURABILITY=process starts there (a Tessera crash loses nothing; PostgreSQL's own crash is its choice)", async () => {
    const r = await serveOnce({ ...db.env, DURABILITY: "process" });
    expect(r.stderr).toBe("");
    expect(r.started).toBe(true);
  });
});

/** Flushes of the embedded store's WAL file by the server process, as strace saw them. */
function walFlushes(trace: string, file: string): number {
  return trace.split("\n").filter((l) => /\b(fsync|fdatasync)\(\d+</.test(l) && l.includes(`${file}-wal>`)).length;
}

describe.skipIf(!STRACE)("the embedded store's flushes under strace", () => {
  const children: ChildProcess[] = [];
  let db: TestDatabase;
  beforeAll(async () => {
    await assetsBuiltOnce();
    await run(process.execPath, [BIN, "--version"], { cwd: ROOT });
    return () => {
      for (const c of children) c.kill("SIGKILL");
    };
  });
  afterEach(async () => {
    await db?.drop();
  });

  /** Serves under strace, evaluates `n` times one after the other, stops; answers the WAL flushes seen. */
  async function flushesFor(durability: string, n: number): Promise<number> {
    db = await freshDatabase("sqlite");
    const project = await createProjectCli(db.env);
    const port = await freePort();
    const traceFile = path.join(db.env.DATA_DIR as string, "strace.txt");
    const child = spawn(STRACE as string, ["-f", "-y", "-e", "trace=fsync,fdatasync", "-o", traceFile, process.execPath, BIN, "serve"], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...db.env,
        NODE_ENV: "test",
        LOG_LEVEL: "warn",
        BOOTSTRAP_PROJECT: "0",
        HOST: "127.0.0.1",
        PORT: String(port),
        DURABILITY: durability,
      },
      stdio: "ignore",
    });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`${url}/readyz`)).status === 200) break;
      } catch {
        // not yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const file = path.join(db.env.DATA_DIR as string, "tessera.db");
    const before = walFlushes(fs.readFileSync(traceFile, "utf8"), file);
    for (let i = 0; i < n; i++) {
      const r = await fetch(`${url}/v3/client/evaluate/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_id: project.clientId, user: `u${i}`, signals: { components: fakeComponents(`s${i}`) } }),
      });
      expect(r.status).toBe(200);
    }
    const after = walFlushes(fs.readFileSync(traceFile, "utf8"), file);
    child.kill("SIGKILL");
    return after - before;
  }

  it("power: the WAL is flushed before each evaluation is answered; process: not per evaluation", async () => {
    const n = 20;
    expect(await flushesFor("power", n)).toBeGreaterThanOrEqual(n);
    // Checkpoints (every 500 ms in their thread) flush the WAL too: a few, not one per evaluation.
    expect(await flushesFor("process", n)).toBeLessThan(n / 2);
  });
});
