// Every write that changes who receives codes, which devices count, or how the environment decides is in the audit
// log (docs/console.md "The audit log"), made with a secret key or a console session alike. The audit table
// (server/src/console/audit-table.ts) is checked three ways: a write route of the server API in neither of its tables
// stops the app from building; every audited route is called once here and must leave an entry naming its action,
// actor and target; and the contact and device changes keep what they were before and became.
import { type AuditEntry, AuditLogPage } from "@tessera/sdk/contract";
import Fastify, { type InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAuditDecision, registerAudit } from "../src/console/audit.js";
import { AUDITED, NOT_AUDITED } from "../src/console/audit-table.js";
import type { Services } from "../src/services.js";
import { consoleCall, type Operator, operator } from "./console-helpers.js";
import { challengedEvaluation, describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describe("the audit table", () => {
  it("a write route of the server API in neither table stops the app from building", async () => {
    const app = Fastify();
    registerAudit(app, {} as Services);
    await expect(
      app.register(async (api) => {
        api.post("/v3/forgotten-write", async () => ({}));
      }),
    ).rejects.toThrow(/POST \/v3\/forgotten-write writes but is in neither AUDITED nor NOT_AUDITED/);
    await app.close();
    // Reads, and routes outside the server API (the console's own sign-in), need no decision.
    expect(() => checkAuditDecision("GET", "/v3/anything")).not.toThrow();
    expect(() => checkAuditDecision("POST", "/console/api/sign-in")).not.toThrow();
  });

  it("no route is in both tables", () => {
    expect(Object.keys(AUDITED).filter((k) => k in NOT_AUDITED)).toEqual([]);
  });
});

describeStores("audit coverage on %s", (kind) => {
  let t: TestApp;
  let owner: Operator;
  let dev: string;
  let keyId: string;
  /** Ids the calls below act on, made in beforeAll. */
  const ids: Record<string, string> = {};

  const key = (method: InjectOptions["method"], url: string, payload?: object): InjectOptions => ({
    method,
    url,
    headers: t.auth,
    ...(payload ? { payload } : {}),
  });

  /** A pending challenge for `user` (a challenge policy on action chk). */
  async function challengeFor(user: string): Promise<string> {
    const ev = await t.app.inject(key("POST", "/v3/evaluate/chk", { user, email: `${user}@example.com`, ip: "203.0.113.9" }));
    expect(ev.statusCode, ev.body).toBe(200);
    const read = await t.app.inject(key("GET", `/v3/evaluations/${ev.json().id}`));
    return read.json().challenge.id as string;
  }

  /** A browser's device, seen on a client login of `user`. */
  async function deviceOf(user: string): Promise<string> {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user, signals: { components: fakeComponents(user), visitor_token: `tok-${user}-aaaaaaaa` } },
    });
    expect(r.statusCode, r.body).toBe(200);
    const devices = (await t.app.inject(key("GET", `/v3/user/${user}/devices`))).json() as { id: string }[];
    return devices[0]?.id as string;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    dev = t.project.environments.development.id;
    keyId = (await t.services.repos.projects.listKeys(t.project.id)).find((k) => t.secret.startsWith(k.prefix))?.id as string;
    owner = await operator(t, "owner@example.com", "owner", [t.project.id]);
    await t.app.inject(key("POST", "/v3/user/contact/update", { email: "before@example.com" }));
    for (const user of ["attach", "detach", "meta", "legacy"]) ids[user] = await deviceOf(user);
    const policy = await t.app.inject(
      key("POST", "/v3/policies", {
        name: "Challenge on chk",
        actions: ["chk"],
        priority: 990,
        conditions: { check: "action", op: "eq", value: "chk" },
        verdict: "challenge",
        challenge: { type: "account_sharing", channels: ["email"] },
      }),
    );
    expect(policy.statusCode, policy.body).toBe(201);
    ids.policy = policy.json().id;
    for (const c of ["override", "complete", "kick"]) ids[c] = await challengeFor(`c-${c}`);
    const identified = await t.app.inject({
      method: "POST",
      url: "/v3/client/identify",
      payload: { client_id: t.clientId, signals: { components: fakeComponents("ident"), visitor_token: "tok-ident-aaaaaaaa" } },
    });
    ids.identification = identified.json().identification_id;
    const endpoint = await t.app.inject(
      key("POST", "/v3/webhook-endpoints", { url: "http://localhost:9/hook", events: ["device.detached"] }),
    );
    ids.endpoint = endpoint.json().id;
    const test = await t.app.inject(key("POST", `/v3/webhook-endpoints/${ids.endpoint}/test`, {}));
    ids.delivery = test.json().id;
    const made = await consoleCall(t, owner, dev, "POST", "/v3/keys");
    ids.key = made.json().id;
  });
  afterAll(async () => t?.close());

  /** One call of each audited route, with what it must record: who made it and the target's id. */
  const calls = (): Record<string, { call: () => Promise<{ statusCode: number }>; actor: "key" | "operator"; target?: string }> => {
    const k = (method: InjectOptions["method"], url: string, payload?: object, target?: string) => ({
      call: () => t.app.inject(key(method, url, payload)),
      actor: "key" as const,
      ...(target ? { target } : {}),
    });
    const session = (method: "POST" | "PATCH", url: string, payload?: object, target?: string) => ({
      call: () => consoleCall(t, owner, dev, method, url, payload),
      actor: "operator" as const,
      ...(target ? { target } : {}),
    });
    return {
      "POST /v3/user/:id/update": k("POST", "/v3/user/contact/update", { email: "after@example.com" }, "contact"),
      "DELETE /v3/user/:id": k("DELETE", "/v3/user/erased", undefined, "erased"),
      "POST /v3/devices/:id/attach": k("POST", `/v3/devices/${ids.attach}/attach`, { user: "someone-else" }, ids.attach),
      "POST /v3/devices/:id/detach": k("POST", `/v3/devices/${ids.detach}/detach`, undefined, ids.detach),
      "POST /v3/devices/:id/metadata": k("POST", `/v3/devices/${ids.meta}/metadata`, { metadata: { name: "Work laptop" } }, ids.meta),
      "POST /v2/proj/device/:device/metadata": k(
        "POST",
        `/v2/proj/device/${ids.legacy}/metadata`,
        { metadata_fields: { team: ["blue"] } },
        ids.legacy,
      ),
      "POST /v2/proj/identification/:id/complete": k(
        "POST",
        `/v2/proj/identification/${ids.identification}/complete`,
        { account: "acct_ident" },
        ids.identification,
      ),
      "POST /v3/challenges/:id/override": k("POST", `/v3/challenges/${ids.override}/override`, { reason: "called the user" }, ids.override),
      "POST /v3/challenges/:id/complete": k("POST", `/v3/challenges/${ids.complete}/complete`, {}, ids.complete),
      "POST /v3/challenges/:id/kick": k("POST", `/v3/challenges/${ids.kick}/kick`, { device: ids.attach as string }, ids.kick),
      "POST /v3/policies": k("POST", "/v3/policies", {
        name: "Audited",
        conditions: { check: "ip_is_tor", op: "eq", value: true },
        verdict: "deny",
      }),
      "PATCH /v3/policies/:id": k("PATCH", `/v3/policies/${ids.policy}`, { priority: 991 }, ids.policy),
      "DELETE /v3/policies/:id": k("DELETE", `/v3/policies/${ids.policy}`, undefined, ids.policy),
      "POST /v3/lists/:id/add": k("POST", "/v3/lists/blocked_ips/add", { values: ["198.51.100.1"] }, "blocked_ips"),
      "POST /v3/lists/:id/remove": k("POST", "/v3/lists/blocked_ips/remove", { values: ["198.51.100.1"] }, "blocked_ips"),
      "POST /v3/webhook-endpoints": k("POST", "/v3/webhook-endpoints", { url: "http://localhost:9/other", events: ["device.detached"] }),
      "DELETE /v3/webhook-endpoints/:id": k("DELETE", `/v3/webhook-endpoints/${ids.endpoint}`, undefined, ids.endpoint),
      "POST /v3/webhook-endpoints/:id/deliveries/:delivery/retry": k(
        "POST",
        `/v3/webhook-endpoints/${ids.endpoint}/deliveries/${ids.delivery}/retry`,
        {},
        ids.delivery,
      ),
      "POST /v3/webhook-endpoints/:id/test": k("POST", `/v3/webhook-endpoints/${ids.endpoint}/test`, {}, ids.endpoint),
      "PATCH /v3/settings": session("PATCH", "/v3/settings", { color: "#0a7f5a" }),
      "POST /v3/keys": session("POST", "/v3/keys"),
      "POST /v3/keys/:id/revoke": session("POST", `/v3/keys/${ids.key}/revoke`, undefined, ids.key),
    };
  };

  const log = async (query: string): Promise<AuditEntry[]> =>
    strict(AuditLogPage).parse((await t.app.inject(key("GET", `/v3/audit-log?limit=100&${query}`))).json()).data;

  it("each audited route, called once, leaves an entry with its action, its actor and its target, and the route exists", async () => {
    const table = calls();
    // A route added to the audit table needs its call here, and every call is of an audited route.
    expect(Object.keys(table).sort()).toEqual(Object.keys(AUDITED).sort());
    for (const [route, spec] of Object.entries(AUDITED)) {
      const [method, url] = route.split(" ") as [InjectOptions["method"], string];
      expect(t.app.hasRoute({ method: method as "POST", url }), route).toBe(true);
      const { call, actor, target } = table[route] as ReturnType<typeof calls>[string];
      const res = await call();
      const entries = await log(`action=${spec.action}`);
      const entry = entries.find((e) => (target ? e.target?.id === target : true) && e.actor.type === actor);
      expect(entry, `${route} (answered ${res.statusCode}) left no ${spec.action} entry by a ${actor}`).toBeDefined();
      expect(entry?.status, route).toBe(res.statusCode);
      if (actor === "key") expect(entry?.actor).toEqual({ type: "key", id: keyId, label: `${t.secret.slice(0, 12)}…` });
      else expect(entry?.actor).toMatchObject({ type: "operator", label: "owner@example.com" });
    }
    // Not audited routes exist too (the table is not stale).
    for (const route of Object.keys(NOT_AUDITED)) {
      const [method, url] = route.split(" ") as [string, string];
      expect(t.app.hasRoute({ method: method as "POST", url }), route).toBe(true);
    }
  });

  it("a contact change keeps the contact before and after; a device attach the account it left", async () => {
    const [update] = await log("action=user.update&target=contact");
    expect(update?.before).toMatchObject({ email: "before@example.com" });
    expect(update?.after).toEqual({ email: "after@example.com" });
    const [attach] = await log(`action=device.attach&target=${ids.attach}`);
    expect(attach?.before).toMatchObject({ id: ids.attach, user: "attach" });
    expect(attach?.after).toMatchObject({ id: ids.attach, user: "someone-else" });
    const [detach] = await log(`action=device.detach&target=${ids.detach}`);
    expect(detach?.before).toMatchObject({ status: "attached" });
    expect(detach?.after).toMatchObject({ status: "detached" });
  });

  it("a server evaluation changing a user's email is an entry (before, after, the evaluation); the same email again, or a browser's claim, is none", async () => {
    const evaluate = (body: object) => t.app.inject(key("POST", "/v3/evaluate/login", body));
    expect((await evaluate({ user: "moved", email: "old@example.com", ip: "203.0.113.9" })).statusCode).toBe(200);
    const entries = () => log("action=user.update&target=moved");
    // Created with its first contacts: not a change.
    expect(await entries()).toEqual([]);
    const changed = await evaluate({ user: "moved", email: "new@example.com", ip: "203.0.113.9" });
    expect(changed.statusCode).toBe(200);
    const [entry, ...rest] = await entries();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      actor: { type: "key", id: keyId },
      target: { type: "user", id: "moved" },
      before: { email: "old@example.com", phone: null },
      after: { email: "new@example.com", evaluation: changed.json().id },
      status: 200,
    });
    expect((await evaluate({ user: "moved", email: "new@example.com", ip: "203.0.113.9" })).statusCode).toBe(200);
    const claimed = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "moved", email: "attacker@example.com", signals: { components: fakeComponents("x") } },
    });
    expect(claimed.statusCode).toBe(200);
    expect(await entries()).toHaveLength(1);
  });

  it("the challenge link's own steps are the user's, not an administrator's change: no entry", async () => {
    const policy = await t.app.inject(
      key("POST", "/v3/policies", {
        name: "Challenge on lnk",
        actions: ["lnk"],
        priority: 990,
        conditions: { check: "action", op: "eq", value: "lnk" },
        verdict: "challenge",
        challenge: { type: "account_takeover", channels: ["email"] },
      }),
    );
    expect(policy.statusCode, policy.body).toBe(201);
    const c = await challengedEvaluation(t, "lnk", "c-link");
    const before = (await log("action=challenge.complete")).length;
    const res = await t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/complete`, headers: c.headers, payload: {} });
    expect(res.statusCode).toBeGreaterThanOrEqual(200);
    expect((await log("action=challenge.complete")).length).toBe(before);
    // The same call with the secret key is an entry.
    await t.app.inject(key("POST", `/v3/challenges/${c.id}/complete`, {}));
    expect((await log("action=challenge.complete")).length).toBe(before + 1);
  });
});
