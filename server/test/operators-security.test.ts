// Operators and audit (docs/console.md "Security"), on both stores, over HTTP and the CLI: sign-in is throttled per
// (email, address), so failures from one address never lock the operator out of another; a chosen password must be
// hard to guess by zxcvbn's estimate; `tessera operators remove`, `operators role` and a new sign-in link end the
// operator's sessions; the CLI's changes are in the audit log; the access log never shows a token or a secret. Each
// attack sits beside its honest look-alike.
import { execFile } from "node:child_process";
import path from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { AuditLogPage, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { callbackUrl } from "../src/delivery/callbacks.js";
import { createServices, type Services } from "../src/services.js";
import type { CreatedProject } from "../src/store/projects.js";
import { CONSOLE_ORIGIN, operator } from "./console-helpers.js";
import { BROWSER_UA, describeStores, freshDatabase, startTestApp, type TestApp, type TestDatabase, testConfig } from "./helpers.js";
import { ROOT } from "./server-process.js";
import { strict } from "./strict.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");

const STRONG = "plum orbit velvet canyon";

const signIn = (app: FastifyInstance, email: string, password: string, remoteAddress: string) =>
  app.inject({
    method: "POST",
    url: "/console/api/sign-in",
    remoteAddress,
    headers: { origin: CONSOLE_ORIGIN, "user-agent": BROWSER_UA },
    payload: { email, password },
  });

const tokenOf = (link: string) => new URL(link.replace("#/welcome?", "?")).searchParams.get("token") as string;

const useLink = (app: FastifyInstance, token: string, password: string) =>
  app.inject({ method: "POST", url: "/console/api/link", headers: { origin: CONSOLE_ORIGIN }, payload: { token, password } });

describeStores("console sign-in throttle and password strength on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  it("ten wrong passwords from address A: the owner signs in from address B at once, and the 11th try from A is a 429", async () => {
    const owner = await operator(t, "owner-a@example.com", "owner", [t.project.id]);
    const fromA: number[] = [];
    for (let i = 0; i < 10; i++) fromA.push((await signIn(t.app, owner.email, `guess number ${i} of many`, "203.0.113.7")).statusCode);
    expect(fromA).toEqual(Array(10).fill(401));
    // The owner, elsewhere, with the right password: not locked out by the stranger.
    const fromB = await signIn(t.app, owner.email, owner.password, "198.51.100.4");
    expect(fromB.statusCode, fromB.body).toBe(200);
    const eleventh = await signIn(t.app, owner.email, "guess number 11 of many", "203.0.113.7");
    expect(eleventh.statusCode).toBe(429);
    expect(Number(eleventh.headers["retry-after"])).toBeGreaterThan(0);
    // From A the right password waits too: A is throttled for this email whatever it sends.
    expect((await signIn(t.app, owner.email, owner.password, "203.0.113.7")).statusCode).toBe(429);
  });

  it("an IPv6 guesser is one address per /64: another address of its /64 is throttled, the next /64 is not", async () => {
    const owner = await operator(t, "owner-v6@example.com", "owner", [t.project.id]);
    for (let i = 0; i < 10; i++) await signIn(t.app, owner.email, `guess number ${i} of many`, `2001:db8:7:1::${i + 1}`);
    expect((await signIn(t.app, owner.email, owner.password, "2001:db8:7:1::ffff")).statusCode).toBe(429);
    expect((await signIn(t.app, owner.email, owner.password, "2001:db8:7:2::1")).statusCode).toBe(200);
  });

  it("one address spraying many emails is stopped past 20 tries, whichever email it names next", async () => {
    const owner = await operator(t, "owner-spray@example.com", "owner", [t.project.id]);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await signIn(t.app, `victim${i}@example.com`, "Summer2024!", "192.0.2.50")).statusCode);
    expect(statuses).toEqual(Array(20).fill(401));
    expect((await signIn(t.app, owner.email, owner.password, "192.0.2.50")).statusCode).toBe(429);
    // The owner from its own address is untouched.
    expect((await signIn(t.app, owner.email, owner.password, "192.0.2.51")).statusCode).toBe(200);
  });

  it("a guessable password is refused with the library's reason (param password) and the link stays usable; a passphrase is accepted", async () => {
    const { link } = await t.services.operators.create({
      email: "ana@example.com",
      role: "viewer",
      projectIds: [t.project.id],
      allProjects: false,
    });
    const token = tokenOf(link);
    const repeated = await useLink(t.app, token, "aaaaaaaaaaaa");
    expect(repeated.statusCode).toBe(400);
    const body = strict(ErrorBody).parse(repeated.json());
    expect(body.error.param).toBe("password");
    expect(body.error.message).toMatch(/too easy to guess.*Repeated characters/);
    // The operator's own email, with a year: long enough, and weak because it is the operator's.
    const personal = await useLink(t.app, token, "ana@example.com2024");
    expect(personal.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(personal.json()).error.message).toMatch(/personal/);
    for (const weak of ["password1234", "qwertyuiopasdf"]) expect((await useLink(t.app, token, weak)).statusCode, weak).toBe(400);
    // The length bounds stay, checked first.
    expect(strict(ErrorBody).parse((await useLink(t.app, token, "short")).json()).error.param).toBe("password");
    const chosen = await useLink(t.app, token, STRONG);
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect((await signIn(t.app, "ana@example.com", STRONG, "198.51.100.20")).statusCode).toBe(200);
  });
});

/** `tessera <args>` on the store `env` names (the real binary: a separate process, as beside a running server). */
async function tessera(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", LOG_LEVEL: "warn", BOOTSTRAP_PROJECT: "0" };
  return run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...base, PUBLIC_URL: CONSOLE_ORIGIN, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout: stdout.trimEnd(), stderr: stderr.trimEnd() }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout.trimEnd(), stderr: e.stderr.trimEnd() }),
  );
}

/** A store shared by an app in this process and the CLI, as a person runs `tessera` beside a server. */
describeStores("tessera operators remove, role and link on %s", (kind) => {
  let db: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  let p1: CreatedProject;
  let p2: CreatedProject;

  /** The real binary, as a person runs it beside the server: exit code and both outputs. */
  const cli = (args: string[]) => tessera(args, db.env);

  /** `operators create`, then the operator chooses its password through the printed link; answers its cookie. */
  async function create(args: string[]): Promise<string> {
    const r = await cli(["operators", "create", ...args]);
    expect(r.code, r.stderr).toBe(0);
    const link = /https?:\/\/\S+#\/welcome\?token=\S+/.exec(r.stdout)?.[0] as string;
    return cookieOf(await useLink(app, tokenOf(link), STRONG));
  }

  function cookieOf(res: { statusCode: number; body: string; headers: Record<string, unknown> }): string {
    expect(res.statusCode, res.body).toBe(200);
    return String(res.headers["set-cookie"]).split(";")[0] as string;
  }

  const session = (cookie: string) => app.inject({ method: "GET", url: "/console/api/session", headers: { cookie } });

  // On a fresh checkout the first command builds the server (its output on stderr): done here, once.
  beforeAll(async () => {
    expect((await tessera(["--version"], {})).code).toBe(0);
  }, 120_000);

  beforeEach(async () => {
    db = await freshDatabase(kind);
    services = await createServices(testConfig(db.env));
    app = await buildApp(services, { logger: false });
    await app.ready();
    p1 = await services.repos.projects.create("One");
    p2 = await services.repos.projects.create("Two");
    // The installation's administrator, as a production installation makes its first one.
    await create(["--email", "admin@example.com", "--role", "owner", "--all-projects"]);
  });
  afterEach(async () => {
    await app?.close();
    await services?.close();
    await db?.drop();
  });

  it("operators link ends the operator's sessions; the new link signs it in", async () => {
    const old = await create(["--email", "ana@example.com", "--role", "owner", "--project", p1.id]);
    expect((await session(old)).statusCode).toBe(200);
    const r = await cli(["operators", "link", "--email", "ana@example.com"]);
    expect(r.code, r.stderr).toBe(0);
    expect((await session(old)).statusCode).toBe(401);
    const link = /https?:\/\/\S+#\/welcome\?token=\S+/.exec(r.stdout)?.[0] as string;
    const fresh = cookieOf(await useLink(app, tokenOf(link), "amber falcon drifts north"));
    expect((await session(fresh)).statusCode).toBe(200);
  });

  it("operators role ends the sessions, and the operator's next session has the new rights", async () => {
    const cookie = await create(["--email", "ana@example.com", "--role", "owner", "--project", p1.id]);
    const env = p1.environments.development.id;
    const changePolicy = (c: string) =>
      app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: { cookie: c, "x-tessera-environment": env, origin: CONSOLE_ORIGIN },
        payload: { name: "By ana", conditions: { check: "ip_is_tor", op: "eq", value: true }, verdict: "deny" },
      });
    expect((await changePolicy(cookie)).statusCode).toBe(201);
    const r = await cli(["operators", "role", "--email", "ana@example.com", "--role", "viewer"]);
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain(`viewer on ${p1.id}`);
    expect((await session(cookie)).statusCode).toBe(401);
    const again = cookieOf(await signIn(app, "ana@example.com", STRONG, "198.51.100.7"));
    expect((await session(again)).json().projects).toEqual([expect.objectContaining({ id: p1.id, role: "viewer" })]);
    expect((await changePolicy(again)).statusCode).toBe(403);
    const read = await app.inject({ method: "GET", url: "/v3/policies", headers: { cookie: again, "x-tessera-environment": env } });
    expect(read.statusCode).toBe(200);
    // The change is in the project's audit log, made by the CLI, with the role before and after.
    const log = strict(AuditLogPage).parse(
      (
        await app.inject({
          method: "GET",
          url: "/v3/audit-log?action=operator.role",
          headers: { authorization: `Bearer ${p1.environments.development.secret}` },
        })
      ).json(),
    );
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({
      actor: { type: "cli" },
      target: { type: "operator" },
      before: { operator: "ana@example.com", role: "owner" },
      after: { operator: "ana@example.com", role: "viewer" },
    });
  });

  it("operators role --project changes that project only, and refuses a project the operator does not have", async () => {
    await create(["--email", "ana@example.com", "--role", "viewer", "--project", p1.id]);
    const refused = await cli(["operators", "role", "--email", "ana@example.com", "--role", "owner", "--project", p2.id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split("\n")).toEqual([
      `tessera: ana@example.com has no role on project ${p2.id} (tessera operators create adds projects) (tessera operators role --help)`,
    ]);
    await cli(["operators", "create", "--email", "ana@example.com", "--role", "viewer", "--project", p2.id]);
    const r = await cli(["operators", "role", "--email", "ana@example.com", "--role", "analyst", "--project", p2.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`viewer on ${p1.id}, analyst on ${p2.id}`);
  });

  it("operators remove ends the sessions and the operator signs in no more; --project takes one project only", async () => {
    const cookie = await create(["--email", "ana@example.com", "--role", "analyst", "--project", p1.id, "--project", p2.id]);
    const partial = await cli(["operators", "remove", "--email", "ana@example.com", "--project", p2.id]);
    expect(partial.code, partial.stderr).toBe(0);
    expect((await session(cookie)).statusCode).toBe(401);
    const again = cookieOf(await signIn(app, "ana@example.com", STRONG, "198.51.100.8"));
    expect((await session(again)).json().projects.map((p: { id: string }) => p.id)).toEqual([p1.id]);
    const r = await cli(["operators", "remove", "--email", "ana@example.com"]);
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: "" });
    expect((await session(again)).statusCode).toBe(401);
    expect((await signIn(app, "ana@example.com", STRONG, "198.51.100.8")).statusCode).toBe(401);
    expect(await services.repos.operators.findByEmail("ana@example.com")).toBeUndefined();
  });

  it("keys create and keys revoke from the CLI are in the environment's audit log (actor cli), never with the secret", async () => {
    const created = await cli(["keys", "create", p1.id, "--env", "development", "--label", "billing worker", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const made = JSON.parse(created.stdout) as { id: string; secret: string };
    expect((await cli(["keys", "revoke", made.id])).code).toBe(0);
    const res = await app.inject({
      method: "GET",
      url: `/v3/audit-log?target=${made.id}`,
      headers: { authorization: `Bearer ${p1.environments.development.secret}` },
    });
    const log = strict(AuditLogPage).parse(res.json());
    expect(log.data.map((e) => [e.action, e.actor.type])).toEqual([
      ["key.revoke", "cli"],
      ["key.create", "cli"],
    ]);
    expect(log.data[1]?.after).toMatchObject({ id: made.id, environment: "development", label: "billing worker" });
    expect(res.body).not.toContain(made.secret);
  });

  it("settings, origins and identity-secret changes from the CLI are in the audit log, before and after, never the secret", async () => {
    const env = p1.environments.development;
    expect((await cli(["projects", "settings", p1.id, "--env", "development", "--sms-countries", "FR,BE"])).code).toBe(0);
    expect((await cli(["projects", "origins", p1.id, "--env", "development", "--set", "https://app.example.com"])).code).toBe(0);
    expect((await cli(["projects", "settings", p1.id, "--device-limit", "4"])).code).toBe(0);
    const rotated = await cli(["keys", "identity-secret", p1.id, "--env", "development", "--json"]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const res = await app.inject({
      method: "GET",
      url: `/v3/audit-log?target=${env.id}`,
      headers: { authorization: `Bearer ${env.secret}` },
    });
    const log = strict(AuditLogPage).parse(res.json());
    expect(log.data.map((e) => [e.action, e.actor.type])).toEqual([
      ["identity_secret.rotate", "cli"],
      ["settings.update", "cli"],
      ["settings.update", "cli"],
      ["settings.update", "cli"],
    ]);
    const [, limit, origins, sms] = log.data;
    expect(sms?.after).toMatchObject({ sms_countries: ["FR", "BE"] });
    expect(sms?.before).not.toHaveProperty("sms_countries");
    expect(origins?.after).toMatchObject({ allowed_origins: ["https://app.example.com"] });
    expect(limit?.before).toMatchObject({ default_device_limit: 3 });
    expect(limit?.after).toMatchObject({ default_device_limit: 4 });
    expect(res.body).not.toContain(JSON.parse(rotated.stdout).identity_secret);
  });

  it("the last installation administrator cannot be removed or demoted; with a second one it can", async () => {
    const removed = await cli(["operators", "remove", "--email", "admin@example.com"]);
    expect(removed.code).toBe(1);
    expect(removed.stderr.split("\n")).toHaveLength(1);
    expect(removed.stderr).toMatch(/^tessera: refused: cannot remove admin@example\.com: it is the installation's last administrator/);
    const demoted = await cli(["operators", "role", "--email", "admin@example.com", "--role", "viewer"]);
    expect(demoted.code).toBe(1);
    expect(demoted.stderr).toMatch(/last administrator/);
    expect((await services.repos.operators.findByEmail("admin@example.com"))?.all_projects_role).toBe("owner");
    await create(["--email", "second@example.com", "--role", "owner", "--all-projects"]);
    expect((await cli(["operators", "remove", "--email", "admin@example.com"])).code).toBe(0);
  });

  it("bad input is one line naming it, exit code 2; --help prints each command's usage and does nothing", async () => {
    const cases: [string[], string][] = [
      [["operators", "remove"], "tessera: --email is required (tessera operators remove --help)"],
      [
        ["operators", "remove", "--email", "nobody@example.com"],
        "tessera: no operator nobody@example.com (tessera operators create makes one) (tessera operators remove --help)",
      ],
      [
        ["operators", "role", "--email", "admin@example.com", "--role", "god"],
        "tessera: --role must be one of owner, analyst, viewer (tessera operators role --help)",
      ],
      [
        ["operators", "role", "--email", "admin@example.com", "--role", "owner", "--project", p1.id, "--all-projects"],
        "tessera: --project and --all-projects cannot be given together (tessera operators role --help)",
      ],
      [["operators", "remove", "--email"], "tessera: option '--email <value>' argument missing (tessera operators remove --help)"],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toBe(line);
      expect(r.stdout).toBe("");
    }
    for (const name of ["operators remove", "operators role", "operators link"]) {
      const r = await cli([...name.split(" "), "--email", "admin@example.com", "--help"]);
      expect(r, name).toMatchObject({ code: 0, stderr: "" });
      expect(r.stdout).toMatch(new RegExp(`^Usage: tessera ${name} --email EMAIL`));
    }
    // --help removed no one.
    expect(await services.repos.operators.findByEmail("admin@example.com")).toBeDefined();
  });
});

describeStores("the access log on %s", (kind) => {
  let db: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  let project: CreatedProject;
  const lines: string[] = [];

  beforeAll(async () => {
    db = await freshDatabase(kind);
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    services = await createServices(testConfig({ ...db.env, LOG_LEVEL: "info" }), { logDestination: sink });
    app = await buildApp(services);
    await app.ready();
    project = await services.repos.projects.create("Logged");
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await db?.drop();
  });

  it("never holds a delivery-callback token, a challenge token, a sign-in link token or a secret, though it logs each request", async () => {
    const secret = project.environments.development.secret;
    // A real signed delivery-callback URL (for a challenge that does not exist: the route answers 404, and logs it).
    const callback = new URL(callbackUrl(services.config.publicUrl, services.keys.deliveryCallback, "chl_logged", 1));
    const callbackToken = callback.pathname.split("/").at(-1) as string;
    expect(callbackToken.length).toBeGreaterThan(20);
    const challengeToken = "ctok_0123456789abcdefghij";
    const linkToken = "ltok_0123456789abcdefghij";
    const requests = [
      { method: "POST" as const, url: callback.pathname, payload: { status: "delivered" } },
      { method: "GET" as const, url: `/challenge/?id=chl_logged&token=${challengeToken}` },
      { method: "GET" as const, url: "/v3/challenges/chl_logged", headers: { "x-challenge-token": challengeToken } },
      { method: "GET" as const, url: `/v3/challenges/chl_logged/view?token=${challengeToken}` },
      { method: "GET" as const, url: `/console/?token=${linkToken}` },
      {
        method: "POST" as const,
        url: "/console/api/link",
        headers: { origin: CONSOLE_ORIGIN },
        payload: { token: linkToken, password: STRONG },
      },
      { method: "GET" as const, url: "/v3/evaluations", headers: { authorization: `Bearer ${secret}` } },
      // A script that put the secret where a key id goes.
      { method: "POST" as const, url: `/v3/keys/${secret}/revoke`, headers: { authorization: `Bearer ${secret}` }, payload: {} },
    ];
    for (const r of requests) await app.inject(r);
    const log = lines.join("");
    const requestLines = lines.map((l) => JSON.parse(l) as { msg: string; path?: string }).filter((l) => l.msg === "request");
    expect(requestLines.length).toBeGreaterThanOrEqual(requests.length);
    // The callback's line is there, its token replaced.
    expect(requestLines.map((l) => l.path)).toContain("/v3/delivery/text/chl_logged/1/[redacted]");
    for (const token of [callbackToken, challengeToken, linkToken, secret]) expect(log).not.toContain(token);
  });
});
