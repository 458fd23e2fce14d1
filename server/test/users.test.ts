// Users (docs/server-api.md): POST /v3/user/:id/update changes only the sent fields and answers 204.
import { ErrorBody } from "@tessera/sdk/contract";
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { pgStatementsDuring } from "./statement-hook.js";
import { strict } from "./strict.js";

describeStores("users on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
  });
  afterAll(async () => t?.close());

  const env = () => t.project.environments.development.id;
  const update = (id: string, payload: unknown, headers = t.auth) =>
    t.app.inject({ method: "POST", url: `/v3/user/${id}/update`, headers, payload: payload as object });

  it("only the sent fields change; groups are stored; the answer is an empty 204", async () => {
    await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "up_user", email: "a@example.com", metadata: { plan: "pro" } },
    });
    const r = await update("up_user", { groups: ["beta", "staff"] });
    expect(r.statusCode).toBe(204);
    expect(r.body).toBe("");
    let u = await t.services.repos.users.findByExternal(env(), "up_user");
    expect(JSON.parse(u?.groups ?? "")).toEqual([{ id: "beta" }, { id: "staff" }]);
    expect(u?.email).toBe("a@example.com");
    expect(JSON.parse(u?.metadata ?? "")).toEqual({ plan: "pro" });
    expect((await update("up_user", { phone: "+33612345678", metadata: { plan: "team" } })).statusCode).toBe(204);
    u = await t.services.repos.users.findByExternal(env(), "up_user");
    expect(u?.phone).toBe("+33612345678");
    expect(JSON.parse(u?.metadata ?? "")).toEqual({ plan: "team" });
    expect(JSON.parse(u?.groups ?? "")).toEqual([{ id: "beta" }, { id: "staff" }]);
    expect(u?.email).toBe("a@example.com");
    expect((await update("up_user", { email: null })).statusCode).toBe(204);
    expect((await t.services.repos.users.findByExternal(env(), "up_user"))?.email).toBeNull();
  });

  it("bad input is 400 naming the field; another project's user is out of reach", async () => {
    const bad = await update("up_user", { phone: "0612" });
    expect(bad.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(bad.json()).error.param).toBe("phone");
    const badGroups = await update("up_user", { groups: "beta" });
    expect(badGroups.statusCode).toBe(400);
    expect(badGroups.json().error.param).toBe("groups");
    // Another project's key creates its own "up_user", and never touches this one.
    expect((await update("up_user", { email: "other@example.com" }, { authorization: `Bearer ${t.otherSecret}` })).statusCode).toBe(204);
    expect((await t.services.repos.users.findByExternal(env(), "up_user"))?.email).toBeNull();
  });

  it("a user Tessera has not met is created with the contacts the backend gives (before any browser names it)", async () => {
    expect((await update("pushed", { email: "pushed@example.com", phone: "+33612345678", groups: ["imported"] })).statusCode).toBe(204);
    const user = await t.services.repos.users.findByExternal(env(), "pushed");
    expect(user).toMatchObject({ email: "pushed@example.com", phone: "+33612345678", groups: '[{"id":"imported"}]' });
    // A browser naming the account afterwards with another address changes nothing (its codes go to the backend's).
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "pushed", email: "attacker@evil.example", signals: { components: {} } },
    });
    expect(r.statusCode).toBe(200);
    expect((await t.services.repos.users.findByExternal(env(), "pushed"))?.email).toBe("pushed@example.com");
  });
});

describeStores("accounts among users on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
  });
  afterAll(async () => t?.close());

  it("finds the accounts among ids by primary key, even when the statistics hold almost no account", async () => {
    const env = t.project.environments.development.id;
    const db = t.services.repos.db;
    // Two thousand provisional users and one account, statistics taken now: on PostgreSQL `provisional = 0` then looks
    // like one row, and a statement naming it could read every account through users_provisional_created.
    await sql`with recursive s(n) as (select 1 union all select n + 1 from s where n < 2000)
      insert into users (id, environment_id, external_id, created_at, updated_at, provisional)
      select 'usr_prov_' || n, ${env}, 'prov-' || n, 1, 1, 1 from s`.execute(db);
    await sql`insert into users (id, environment_id, external_id, created_at, updated_at, provisional)
      values ('usr_account', ${env}, 'account', 1, 1, 0)`.execute(db);
    await sql`analyze`.execute(db);
    const ids = ["usr_account", "usr_prov_7", "usr_missing"];
    const { sent, result } = await pgStatementsDuring(() => t.services.repos.users.confirmedAmong(ids));
    expect(result).toEqual(["usr_account"]);
    if (kind !== "postgres") return;
    const texts = sent.filter((x) => x.includes('from "users"'));
    expect(texts).toHaveLength(1);
    const values = Array.from(texts[0]!.matchAll(/\$\d+/g), (_, i) => ids[i] ?? 0);
    const plan = await db.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${texts[0]}`, values));
    const lines = plan.rows.map((r) => Object.values(r).join(" ")).join("\n");
    expect(lines).toContain("users_pkey");
    expect(lines).not.toContain("users_provisional_created");
  });
});
