// `tessera import` (docs/migrating.md "Import") on both stores: a sample export (JSON shaped like the hosted service's
// objects) and a CSV of users go in through the CLI and come back out through the API; a second run changes nothing;
// a dry run writes nothing; an invalid row stops the import naming the file, the row and the field (or, with
// --skip-invalid, is left out while the others go in).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { ROOT } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");

const FIXTURES = path.join(import.meta.dirname, "fixtures", "migrating");
const EXPORT = path.join(FIXTURES, "export.json");
const CSV = path.join(FIXTURES, "users.csv");

describeStores("tessera import on %s", (kind) => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-import-"));
    // On a fresh checkout the first command builds the server (its output on stderr): build it here, not in a test.
    await run(process.execPath, [BIN, "--version"], { cwd: ROOT, timeout: 300_000 });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The real binary on the test app's store, as an operator runs it beside a running server (on the embedded store a
   * second connection in this process would wait for the app's open write synchronously, which a separate process
   * does not).
   */
  async function tessera(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const { DATABASE_URL, DATA_DIR } = t.services.config;
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "test",
      LOG_LEVEL: "warn",
      BOOTSTRAP_PROJECT: "0",
      PUBLIC_URL: "http://localhost:8080",
      ...(DATABASE_URL ? { DATABASE_URL } : { DATA_DIR }),
    };
    return run(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout: stdout.trimEnd(), stderr: stderr.trimEnd() }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout.trimEnd(), stderr: e.stderr.trimEnd() }),
    );
  }
  const target = () => ["--project", t.project.id, "--env", "development"];
  const get = (url: string) => t.app.inject({ method: "GET", url, headers: t.auth });
  const importedPolicies = async () =>
    ((await get("/v3/policies?limit=100")).json().data as { name: string; verdict: string; actions: string[] }[]).filter((p) =>
      ["Challenge a login from a new device on a new network", "Let VIP accounts in"].includes(p.name),
    );

  it("a dry run reports what would change and writes nothing", async () => {
    const r = await tessera(["import", EXPORT, CSV, ...target(), "--dry-run", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.dryRun).toBe(true);
    expect(report.totals).toEqual({
      // acct_1 is created by the JSON row; its CSV row then merges one more metadata key into it.
      users: { created: 4, updated: 1, skipped: 0, invalid: 0 },
      lists: { created: 2, updated: 0, skipped: 0, invalid: 0 },
      policies: { created: 2, updated: 0, skipped: 1, invalid: 0 },
    });
    expect((await get("/v3/users/acct_1")).statusCode).toBe(404);
    expect((await get("/v3/lists/vip")).json().total).toBe(0);
    expect(await importedPolicies()).toEqual([]);
  });

  it("imports users, lists and policies, read back through the API as the file has them", async () => {
    const r = await tessera(["import", EXPORT, CSV, ...target()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Imported:\n {2}users {4}4 created, 1 updated, 0 skipped, 0 invalid/);
    expect(r.stdout).toContain("skipped: export.json policies[2] (Deny blocked networks in production): for the production environment");

    const ana = (await get("/v3/users/acct_1")).json();
    expect(ana).toMatchObject({ id: "acct_1", email: "ana@example.com", phone: "+33612345678" });
    expect(ana.metadata).toEqual({ plan: "pro", seats: 3, tier: "gold" });
    expect(ana.groups).toEqual([{ id: "org_17", name: "Acme Inc.", metadata: { tier: "enterprise" } }, { id: "beta" }]);
    expect((await get("/v3/users/acct_2")).json().groups).toEqual([{ id: "org_17", name: "Acme Inc." }]);
    expect((await get("/v3/users/acct_3")).json()).toMatchObject({ phone: "+14155550123", metadata: {}, groups: [] });
    expect((await get("/v3/users/acct_4")).json()).toMatchObject({
      email: "dee@example.com",
      phone: "+33698765432",
      metadata: { plan: "team" },
      groups: [{ id: "beta" }, { id: "staff" }],
    });

    const vip = (await get("/v3/lists/vip")).json();
    expect(vip.data.map((e: { value: string; comment?: string }) => [e.value, e.comment])).toEqual([
      ["acct_1", "paying since 2024"],
      ["acct_2", "paying since 2024"],
    ]);
    expect((await get("/v3/lists/blocked_ips")).json().total).toBe(2);

    const policies = await importedPolicies();
    expect(policies).toHaveLength(2);
    expect(policies.find((p) => p.name === "Let VIP accounts in")).toMatchObject({ verdict: "allow", actions: ["login"] });
    expect(policies.find((p) => p.name.startsWith("Challenge"))).toMatchObject({ verdict: "challenge", actions: ["login"] });

    // Every change is in the audit log, by the CLI.
    const audit = (await get("/v3/audit-log?limit=100")).json().data as {
      actor: { type: string };
      action: string;
      target?: { id?: string };
    }[];
    const byCli = audit.filter((e) => e.actor.type === "cli");
    expect(byCli.map((e) => e.action).sort()).toEqual(
      [
        "list.add",
        "list.add",
        "policy.create",
        "policy.create",
        "user.update",
        "user.update",
        "user.update",
        "user.update",
        "user.update",
      ].sort(),
    );
  });

  it("imported again, nothing changes: every row is skipped as unchanged", async () => {
    const before = await t.services.repos.users.findByExternal(t.project.environments.development.id, "acct_1");
    const r = await tessera(["import", EXPORT, CSV, ...target(), "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.totals).toEqual({
      users: { created: 0, updated: 0, skipped: 5, invalid: 0 },
      lists: { created: 0, updated: 0, skipped: 2, invalid: 0 },
      policies: { created: 0, updated: 0, skipped: 3, invalid: 0 },
    });
    const after = await t.services.repos.users.findByExternal(t.project.environments.development.id, "acct_1");
    expect(after?.updated_at).toBe(before?.updated_at);
    expect(await importedPolicies()).toHaveLength(2);
  });

  it("an invalid row stops the import naming the file, the line and the field; --skip-invalid imports the others", async () => {
    const bad = path.join(dir, "bad.csv");
    fs.writeFileSync(bad, "id,email,phone\nnew_1,new1@example.com,\nnew_2,new2@example.com,0612\n");
    const refused = await tessera(["import", bad, ...target()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^tessera import: bad\.csv line 3: phone: .*international format/m);
    expect(refused.stderr).toMatch(/nothing was imported/);
    expect((await get("/v3/users/new_1")).statusCode).toBe(404);

    const skipped = await tessera(["import", bad, ...target(), "--skip-invalid"]);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/invalid: bad\.csv line 3: phone: /);
    expect((await get("/v3/users/new_1")).statusCode).toBe(200);
    expect((await get("/v3/users/new_2")).statusCode).toBe(404);
  });

  it("a contact the delivery checks refuse is found before anything is written", async () => {
    const file = path.join(dir, "contacts.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        users: [
          { id: "c_1", email: "c1@example.com" },
          { id: "c_2", email: "Eve <eve@example.com>" },
        ],
      }),
    );
    const r = await tessera(["import", file, ...target()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/contacts\.json users\[1\]: email: /);
    expect((await get("/v3/users/c_1")).statusCode).toBe(404);
  });

  it("a long import says how far it is on stderr, leaving stdout to the report", async () => {
    const big = path.join(dir, "big.csv");
    fs.writeFileSync(big, `id,email\n${Array.from({ length: 1200 }, (_, i) => `bulk_${i},bulk${i}@example.com`).join("\n")}\n`);
    const r = await tessera(["import", big, ...target(), "--dry-run", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr.split("\n")).toContain("tessera import: 1200/1200 rows");
    expect(JSON.parse(r.stdout).totals.users).toEqual({ created: 1200, updated: 0, skipped: 0, invalid: 0 });
  });

  it("a file that cannot be read as a whole is one line naming it; an unknown field names the row and the field", async () => {
    const broken = path.join(dir, "broken.json");
    fs.writeFileSync(broken, '{ "users": [ ');
    const notJson = await tessera(["import", broken, ...target()]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr.split("\n")).toHaveLength(1);
    expect(notJson.stderr).toMatch(/^tessera import: broken\.json: not JSON/);

    const odd = path.join(dir, "odd.json");
    fs.writeFileSync(odd, JSON.stringify({ users: [{ id: "o_1", emial: "o@example.com" }] }));
    const unknown = await tessera(["import", odd, ...target()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^tessera import: odd\.json users\[0\]: emial: unknown field/m);

    const noProject = await tessera(["import", odd, "--project", "prj_nope", "--env", "development"]);
    expect(noProject.code).toBe(2);
    // Import's mistakes read as every command's: one line, the help named.
    expect(noProject.stderr.trim().split("\n")).toEqual([
      "tessera: no project prj_nope (tessera projects list shows them) (tessera import --help)",
    ]);
  });
});
