// /readyz reflects whether evaluations can complete (docs/operations.md#readiness-timeouts-and-a-database-failover):
// while another connection holds a lock evaluations wait for — PostgreSQL `LOCK TABLE evaluations IN ACCESS EXCLUSIVE
// MODE`, SQLite a write transaction of another process — it answers 503, and 200 again once the lock is gone. Before,
// PostgreSQL answered 200 through a 10-s lock on evaluations while no evaluation completed (the probe wrote only the
// settings table), and the embedded store stood still 5 s per write (a synchronous busy wait) before answering.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { ROOT } from "./server-process.js";

/** A generous bound for the first answer during the lock (the probe gives up after 0.25–1 s; before, 5 s or never). */
const ANSWER_WITHIN_MS = 2_500;

async function ready(t: TestApp): Promise<{ status: number; message?: string; ms: number }> {
  const at = Date.now();
  const r = await t.app.inject({ method: "GET", url: "/readyz" });
  return { status: r.statusCode, message: (r.json() as { error?: { message: string } }).error?.message, ms: Date.now() - at };
}

/** Another process holding the SQLite file's write lock until told to let go (stdin closes). */
async function sqliteWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const SQLite = require(${JSON.stringify(path.join(ROOT, "node_modules", "better-sqlite3"))});
    const db = new SQLite(${JSON.stringify(file)});
    db.pragma("busy_timeout = 5000");
    db.exec("begin immediate");
    db.prepare("insert into settings (key, value) values ('held-by-another-process', 'x') on conflict (key) do update set value = 'y'").run();
    process.stdout.write("held\\n");
    process.stdin.resume();
    process.stdin.on("end", () => { db.exec("commit"); db.close(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  await once(child.stdout!, "data");
  return {
    release: async () => {
      const exited = once(child, "exit");
      child.stdin?.end();
      await exited;
    },
  };
}

describeStores("/readyz during a lock on what evaluations write, on %s", (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("answers 503 while the lock is held, and 200 again after", async () => {
    t = await startTestApp(kind);
    expect((await ready(t)).status).toBe(200);
    let release: () => Promise<void>;
    if (kind === "postgres") {
      const holder = new pg.Client({ connectionString: t.services.config.DATABASE_URL });
      await holder.connect();
      await holder.query("begin");
      await holder.query("lock table evaluations in access exclusive mode");
      release = async () => {
        await holder.query("commit");
        await holder.end();
      };
    } else {
      release = (await sqliteWriteLock(t.services.config.sqlitePath)).release;
    }
    try {
      // The first probe after the lock is taken already says so.
      const during = await ready(t);
      expect(during.status, during.message).toBe(503);
      expect(during.message).toMatch(/^Not ready: /);
      expect(during.ms).toBeLessThan(ANSWER_WITHIN_MS);
      // And it keeps saying so while the lock lasts.
      expect((await ready(t)).status).toBe(503);
    } finally {
      await release();
    }
    let after = await ready(t);
    for (let i = 0; i < 20 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await ready(t);
    }
    expect(after.status, after.message).toBe(200);
    // The honest look-alike: with the lock gone, evaluations complete.
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "after-lock", signals: { components: fakeComponents("after-lock") } },
    });
    expect(r.statusCode, r.body).toBe(200);
  });

  it("the look-alike: a lock that evaluations do not wait for (a reader of evaluations) leaves it ready", async () => {
    t = await startTestApp(kind);
    if (kind === "postgres") {
      const reader = new pg.Client({ connectionString: t.services.config.DATABASE_URL });
      await reader.connect();
      await reader.query("begin");
      // ACCESS SHARE, what a long report's SELECT takes: inserts go on beside it.
      await reader.query("lock table evaluations in access share mode");
      try {
        expect((await ready(t)).status).toBe(200);
      } finally {
        await reader.query("commit");
        await reader.end();
      }
    } else {
      // A reader of the file (WAL: readers never block the writer), as `tessera backup` is.
      const SQLite = (await import("better-sqlite3")).default;
      const reader = new SQLite(t.services.config.sqlitePath, { readonly: true });
      reader.exec("begin");
      reader.prepare("select count(*) from evaluations").get();
      try {
        expect((await ready(t)).status).toBe(200);
      } finally {
        reader.exec("commit");
        reader.close();
      }
    }
  });
});
