// Retention of every table that grows (docs/storage.md#retention-and-erasure), on both stores: rows backdated past
// their rule are gone after the retention job's run (PrivacyService.prune, what the hourly job calls), and rows within
// it stay — read back through the API where the API shows them. Before, challenges, devices, fingerprints, confirmed
// users, the development outbox, content hashes, legacy identifications, expired list entries, expired console sessions
// and the audit log were never pruned.
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { eventLoopTurnsDuring, sqliteStatementsDuring } from "./statement-hook.js";

const DAY = 86_400_000;
const DAYS = 90;

describeStores("retention on %s", (kind) => {
  let t: TestApp;
  let env: string;
  const old = Date.now() - (DAYS + 5) * DAY;
  beforeAll(async () => {
    t = await startTestApp(kind, { RETENTION_DAYS: String(DAYS) });
    env = t.project.environments.development.id;
  });
  afterAll(async () => t?.close());

  const db = () => t.services.repos.db;
  const api = (method: string, url: string, payload?: unknown) =>
    t.app.inject({ method: method as "GET", url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  /** A confirmed user's login on its own browser: the backend consumed it. */
  async function login(user: string, seed: string): Promise<{ evaluation: string; device: string }> {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user, signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` } },
    });
    expect(r.statusCode, r.body).toBe(200);
    const evaluation = (r.json() as { evaluation_id: string }).evaluation_id;
    expect((await api("POST", `/v3/evaluations/${evaluation}/consume`)).statusCode).toBe(200);
    const ev = (await api("GET", `/v3/evaluations/${evaluation}`)).json() as { device: string };
    return { evaluation, device: ev.device };
  }
  /** Everything of `user` dated `at`: its evaluations, devices and their fingerprints, and the user row itself. */
  async function backdateUser(user: string, at: number, opts: { keepUserRow?: boolean } = {}) {
    const row = await db()
      .selectFrom("users")
      .select("id")
      .where("environment_id", "=", env)
      .where("external_id", "=", user)
      .executeTakeFirstOrThrow();
    await db().updateTable("evaluations").set({ created_at: at, updated_at: at }).where("user_id", "=", row.id).execute();
    await db().updateTable("access_records").set({ created_at: at }).where("user_id", "=", row.id).execute();
    const devices = await db().selectFrom("devices").select(["id", "fingerprint_id"]).where("user_id", "=", row.id).execute();
    await db().updateTable("devices").set({ created_at: at, last_seen_at: at }).where("user_id", "=", row.id).execute();
    const fps = devices.map((d) => d.fingerprint_id).filter((f): f is string => !!f);
    if (fps.length) await db().updateTable("fingerprints").set({ created_at: at, last_seen_at: at }).where("id", "in", fps).execute();
    if (!opts.keepUserRow) await db().updateTable("users").set({ created_at: at, updated_at: at }).where("id", "=", row.id).execute();
    return { id: row.id, devices: devices.map((d) => d.id), fingerprints: fps };
  }
  const count = async (table: string, where = sql`1 = 1`) =>
    Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(db())).rows[0]?.n);

  it("prunes what outlived its rule and keeps what did not, table by table", async () => {
    // Users: one silent for longer than the window, one still logging in, one the backend updated lately.
    await login("stale", "stale-browser");
    await login("active", "active-old-browser");
    await login("updated", "updated-browser");
    const stale = await backdateUser("stale", old);
    const activeOld = await backdateUser("active", old);
    await db().updateTable("users").set({ updated_at: old }).where("id", "=", activeOld.id).execute();
    const active = await login("active", "active-new-browser");
    await backdateUser("updated", old);
    expect((await api("POST", "/v3/user/updated/update", { metadata: { plan: "pro" } })).statusCode).toBe(204);

    // Challenges: an ended one from long ago, and today's.
    const policy = await api("POST", "/v3/policies", {
      name: "Challenge payments (test)",
      actions: ["payment"],
      priority: 1000,
      conditions: { all: [] },
      verdict: "challenge",
      challenge: { type: "account_takeover", channels: ["email"] },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    const challenged = async (user: string) => {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/payment",
        payload: { client_id: t.clientId, user, email: `${user}@example.com`, signals: { components: fakeComponents(`${user}-pay`) } },
      });
      return new URL((r.json() as { redirect: string }).redirect).searchParams.get("challenge") as string;
    };
    const oldChallenge = await challenged("payer-old");
    const newChallenge = await challenged("payer-new");
    await db()
      .updateTable("challenges")
      .set({ created_at: old, expires_at: old + 3600_000 })
      .where("id", "=", oldChallenge)
      .execute();

    // The development outbox (codes in clear): a send two days old and one now.
    for (const id of [oldChallenge, newChallenge]) {
      await db()
        .insertInto("dev_outbox")
        .values({
          id: `msg_${id}`,
          environment_id: env,
          challenge_id: id,
          channel: "email",
          recipient: "x@example.com",
          subject: "code",
          body: "123456",
          code: "123456",
          created_at: id === oldChallenge ? Date.now() - 2 * DAY : Date.now(),
        })
        .execute();
    }

    // Content hashes are read over a day; legacy identifications live as long as evaluations.
    await t.services.repos.history.recordContent(env, "h-old", null, Date.now() - 2 * DAY);
    await t.services.repos.history.recordContent(env, "h-new", null, Date.now());
    for (const [id, at] of [
      ["idn_old", old],
      ["idn_new", Date.now()],
    ] as const) {
      await db()
        .insertInto("identifications")
        .values({
          id,
          environment_id: env,
          device_id: active.device,
          fingerprint_id: null,
          confidence: 1,
          user_id: null,
          access_id: null,
          new_device: 0,
          completed_at: null,
          created_at: at,
        })
        .execute();
    }

    // Lists: an entry that expired long ago, one that expires later.
    expect((await api("POST", "/v3/lists/blocked_ips/add", { values: ["203.0.113.7"], ttl: 3600 })).statusCode).toBe(200);
    expect((await api("POST", "/v3/lists/blocked_ips/add", { values: ["203.0.113.8"], ttl: 3600 })).statusCode).toBe(200);
    await db().updateTable("list_entries").set({ expires_at: old }).where("value", "=", "203.0.113.7").execute();

    // The audit log (the changes above wrote entries): one entry four hundred days old, one a hundred.
    const entries = await db().selectFrom("audit_log").select("id").where("project_id", "=", t.project.id).orderBy("created_at").execute();
    expect(entries.length).toBeGreaterThanOrEqual(2);
    await db()
      .updateTable("audit_log")
      .set({ created_at: Date.now() - 400 * DAY })
      .where("id", "=", entries[0]!.id)
      .execute();
    await db()
      .updateTable("audit_log")
      .set({ created_at: Date.now() - 100 * DAY })
      .where("id", "=", entries[1]!.id)
      .execute();

    // Console sessions: one expired, one live.
    const operator = "op_retention";
    await db()
      .insertInto("operators")
      .values({
        id: operator,
        email: "ret@example.com",
        password_hash: null,
        all_projects_role: "owner",
        link_hash: null,
        link_expires_at: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto("operator_sessions")
      .values([
        { id: "sess-expired", operator_id: operator, created_at: old, expires_at: Date.now() - 1000 },
        { id: "sess-live", operator_id: operator, created_at: Date.now(), expires_at: Date.now() + DAY },
      ])
      .execute();

    const pruned = await t.services.privacy.prune(DAYS);

    // The stale user is gone with its device and fingerprint; the API no longer knows it.
    expect((await api("GET", "/v3/users/stale")).statusCode).toBe(404);
    expect(await count("devices", sql`id in (${sql.join(stale.devices)})`)).toBe(0);
    expect(await count("fingerprints", sql`id in (${sql.join(stale.fingerprints)})`)).toBe(0);
    // The active user stays (a recent login), and so does the browser it used today; the one unseen for 95 days (its
    // attached device until now) is gone, with its fingerprint.
    expect((await api("GET", "/v3/users/active")).statusCode).toBe(200);
    expect(await count("devices", sql`id = ${active.device}`)).toBe(1);
    expect(await count("devices", sql`id in (${sql.join(activeOld.devices)})`)).toBe(0);
    // Its device list holds no pruned browser: at most today's, attached when its login was let in (a known account
    // on the network it used before: docs/detection.md, "Sign-up farms").
    const activeListed = ((await api("GET", "/v3/user/active/devices")).json() as Array<{ id: string }>).map((d) => d.id);
    expect(activeListed.filter((id) => id !== active.device)).toEqual([]);
    expect(activeOld.devices.some((id) => activeListed.includes(id))).toBe(false);
    expect(await count("fingerprints", sql`id in (${sql.join(activeOld.fingerprints)})`)).toBe(0);
    // The backend updated this one lately: kept, though its only browser is gone.
    expect((await api("GET", "/v3/users/updated")).statusCode).toBe(200);
    expect((await api("GET", "/v3/user/updated/devices")).json()).toEqual([]);

    expect((await api("GET", `/v3/challenges/${oldChallenge}`)).statusCode).toBe(404);
    expect((await api("GET", `/v3/challenges/${newChallenge}`)).statusCode).toBe(200);
    expect(await count("dev_outbox", sql`challenge_id = ${oldChallenge}`)).toBe(0);
    expect(await count("dev_outbox", sql`challenge_id = ${newChallenge}`)).toBe(1);
    expect(await count("content_hashes", sql`hash = 'h-old'`)).toBe(0);
    expect(await count("content_hashes", sql`hash = 'h-new'`)).toBe(1);
    expect(await count("identifications", sql`id = 'idn_old'`)).toBe(0);
    expect(await count("identifications", sql`id = 'idn_new'`)).toBe(1);
    const listed = (await api("GET", "/v3/lists/blocked_ips")).json() as { data?: Array<{ value: string }> } | Array<{ value: string }>;
    expect(JSON.stringify(listed)).toContain("203.0.113.8");
    expect(await count("list_entries", sql`value = '203.0.113.7'`)).toBe(0);
    const audit = (await api("GET", "/v3/audit-log?limit=100")).json() as { data: Array<{ id: string }> };
    const ids = audit.data.map((e) => e.id);
    expect(ids).not.toContain(entries[0]!.id);
    expect(ids).toContain(entries[1]!.id);
    expect(await count("operator_sessions", sql`id = 'sess-expired'`)).toBe(0);
    expect(await count("operator_sessions", sql`id = 'sess-live'`)).toBe(1);
    expect(pruned).toMatchObject({ users: 1, challenges: 1, audit_log: 1 });
  });

  it("lets the event loop turn between two steps (on the embedded store a loop of queries would let no request in)", async () => {
    for (const seed of ["turn-a", "turn-b", "turn-c"]) await login(`turns-${seed}`, seed);
    for (const seed of ["turn-a", "turn-b", "turn-c"]) await backdateUser(`turns-${seed}`, old);
    // One evaluation per step: three old ones, so at least two turns between steps.
    const { turns, result: pruned } = await eventLoopTurnsDuring(() => t.services.repos.userData.pruneBefore(Date.now() - DAYS * DAY, 1));
    expect(pruned.evaluations).toBeGreaterThanOrEqual(3);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it("prunes the old evaluations of every environment, each read through its (environment, time) index", async () => {
    // No index leads with the time alone (migration 35): the evaluations are read one environment at a time.
    const prod = t.project.environments.production;
    const evaluate = async (clientId: string, user: string) => {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        payload: { client_id: clientId, user, signals: { components: fakeComponents(user), visitor_token: `tok-${user}-xxxxxxxx` } },
      });
      expect(r.statusCode, r.body).toBe(200);
      return (r.json() as { evaluation_id: string }).evaluation_id;
    };
    const oldDev = await evaluate(t.clientId, "envs-old-dev");
    const oldProd = await evaluate(prod.client_id, "envs-old-prod");
    const recentProd = await evaluate(prod.client_id, "envs-recent-prod");
    await db().updateTable("evaluations").set({ created_at: old, updated_at: old }).where("id", "in", [oldDev, oldProd]).execute();
    const { ran, result: pruned } = await (kind === "sqlite"
      ? sqliteStatementsDuring
      : async <T>(fn: () => Promise<T>) => ({ ran: [], result: await fn() }))(() =>
      t.services.repos.userData.pruneBefore(Date.now() - DAYS * DAY),
    );
    expect(pruned.evaluations).toBeGreaterThanOrEqual(2);
    expect(await count("evaluations", sql`id in (${oldDev}, ${oldProd})`)).toBe(0);
    expect(await count("evaluations", sql`id = ${recentProd}`)).toBe(1);
    for (const text of ran.filter((x) => /^select .* from "evaluations"/.test(x))) {
      const values = Array.from(text.matchAll(/\?/g), () => "x");
      const plan = await db().executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${text}`, values));
      expect(plan.rows.map((r) => r.detail).join(" | ")).toContain("INDEX evaluations_env_time_id");
    }
    if (kind === "sqlite") expect(ran.filter((x) => /^select .* from "evaluations"/.test(x)).length).toBeGreaterThanOrEqual(3);
  });
});
