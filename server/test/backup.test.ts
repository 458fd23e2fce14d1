// `tessera backup FILE` and the restore of docs/operations.md#backup-and-restore, on both stores: evaluations are
// written at full speed while the backup runs; the backup is restored into a fresh data folder (SQLite: the file as
// DATA_DIR/tessera.db) or a fresh database (PostgreSQL: pg_restore), a server starts on it, and every evaluation
// acknowledged before the backup began is there. (A plain `cp` of the SQLite file under load lost 19 of 559.)
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, freshDatabase, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, ROOT, runCli, type ServerProcess, startServer } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");
/** Acknowledged evaluations before the backup starts. */
const BEFORE = 150;
const WORKERS = 8;

describeStores("backup and restore on %s", (kind) => {
  let db: TestDatabase;
  let restored: TestDatabase;
  let project: CliProject;
  let folder: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = await freshDatabase(kind);
    restored = await freshDatabase(kind);
    project = await createProjectCli(db.env);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-backup-"));
  });
  afterAll(async () => {
    for (const s of servers) await s.kill();
    await db?.drop();
    await restored?.drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it("a backup taken under load restores every evaluation acknowledged before it began", async () => {
    const server = await startServer(db.env);
    servers.push(server);
    const acked: string[] = [];
    let stop = false;
    let n = 0;
    const worker = async (w: number) => {
      for (let i = 0; !stop && i < 5_000; i++) {
        const seed = `b${w}-${i}`;
        const r = await fetch(`${server.url}/v3/client/evaluate/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            client_id: project.clientId,
            user: `user_${(n++ * 7) % 300}`,
            signals: { components: fakeComponents(seed), visitor_token: `vt-${seed}-xxxxxxxx` },
          }),
        });
        if (r.status !== 200) throw new Error(`evaluate answered ${r.status}: ${await r.text()}`);
        acked.push(((await r.json()) as { evaluation_id: string }).evaluation_id);
      }
    };
    const writing = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    while (acked.length < BEFORE) await new Promise((r) => setTimeout(r, 20));
    const before = [...acked];
    const file = path.join(folder, kind === "sqlite" ? "tessera-backup.db" : "tessera-backup.dump");
    const out = await runCli(db.env, ["backup", file]);
    const duringBackup = acked.length - before.length;
    stop = true;
    await writing;
    expect(out).toMatch(/^Backed up to .* MiB; (SQLite VACUUM INTO|pg_dump --format=custom)/);
    // The writes really went on while the backup ran.
    expect(duringBackup).toBeGreaterThan(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    await server.stop();

    // The restore, as docs/operations.md says it.
    if (kind === "sqlite") {
      fs.copyFileSync(file, path.join(restored.env.DATA_DIR as string, "tessera.db"));
    } else {
      await run("pg_restore", ["--no-owner", `--dbname=${restored.env.DATABASE_URL}`, file]);
    }
    const again = await startServer(restored.env);
    servers.push(again);
    const auth = { authorization: `Bearer ${project.secret}` };
    const missing: string[] = [];
    for (let i = 0; i < before.length; i += 25) {
      await Promise.all(
        before.slice(i, i + 25).map(async (id) => {
          const r = await fetch(`${again.url}/v3/evaluations/${id}`, { headers: auth });
          if (r.status !== 200) missing.push(`${id}: ${r.status}`);
          else await r.arrayBuffer();
        }),
      );
    }
    expect(missing).toEqual([]);
    // The restored store takes writes: the project's keys and its generated master key came with it.
    const r = await fetch(`${again.url}/v3/client/evaluate/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: project.clientId, user: "after-restore", signals: { components: fakeComponents("after") } }),
    });
    expect(r.status).toBe(200);
    await again.stop();
  });

  it("refuses to replace an existing file without --force, in one line (the look-alike: --force replaces it)", async () => {
    const file = path.join(folder, "exists.bak");
    fs.writeFileSync(file, "keep me");
    const refused = await run(process.execPath, [BIN, "backup", file], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "test", ...db.env },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`tessera backup: ${file} exists: choose another FILE, or pass --force to replace it`);
    expect(fs.readFileSync(file, "utf8")).toBe("keep me");
    expect(await runCli(db.env, ["backup", file, "--force"])).toMatch(/^Backed up to /);
    expect(fs.readFileSync(file).subarray(0, 5).toString()).not.toBe("keep ");
  });

  // Registered on that store only (nothing to run on the other).
  if (kind === "postgres")
    it("without pg_dump on the PATH prints the exact command to run, without the password", async () => {
      const url = new URL(db.env.DATABASE_URL as string);
      url.password = "s3cret";
      const file = path.join(folder, "no-pg-dump.dump");
      const failed = await run(process.execPath, [BIN, "backup", file], {
        cwd: ROOT,
        env: { PATH: path.dirname(process.execPath), HOME: process.env.HOME ?? "", NODE_ENV: "test", DATABASE_URL: url.toString() },
      }).then(
        () => ({ code: 0, stderr: "" }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed.code).toBe(1);
      url.password = "";
      expect(failed.stderr.trim()).toBe(
        `tessera backup: pg_dump is not on the PATH: install PostgreSQL's client tools (the server's version or newer), or run where they are: pg_dump --format=custom --file='${file}' --dbname='${url}'`,
      );
      expect(failed.stderr).not.toContain("s3cret");
    });
});
