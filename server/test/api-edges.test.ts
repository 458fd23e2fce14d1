// API edges a client meets on its first day (docs/server-api.md), on both stores: operations that take no body accept none, an
// empty JSON body and {}; GET /v3/policies paginates.
import {
  Challenge,
  ChallengeOverriddenEvent,
  ChallengeView,
  ErrorBody,
  Evaluation,
  HEARTBEATS_PER_MINUTE,
  Page,
  Policy,
} from "@tessera/sdk/contract";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { challengedEvaluation, describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** The three ways a client posts "nothing": no body at all, a JSON-labelled empty body, an empty object. */
const NO_BODY: Record<string, Pick<InjectOptions, "payload" | "headers">> = {
  "no body": {},
  "an empty JSON body": { headers: { "content-type": "application/json" }, payload: "" },
  "{}": { headers: { "content-type": "application/json" }, payload: "{}" },
};

describeStores("API edges on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { CHALLENGE_IP_RATE_LIMIT: "100000" });
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Challenge every edge",
        actions: ["edge"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "account_takeover", channels: ["email"] },
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A challenged client evaluation; the user gets the email codes go to. */
  const challenged = (user: string) => challengedEvaluation(t, "edge", user);

  const post = (url: string, headers: Record<string, string>, variant: Pick<InjectOptions, "payload" | "headers">) =>
    t.app.inject({ method: "POST", url, payload: variant.payload, headers: { ...headers, ...(variant.headers ?? {}) } });

  /** The code of the latest message to `to` in the dev outbox (no SMTP_URL in development and test). */
  async function lastCode(to: string): Promise<string> {
    const messages = await t.services.repos.challenges.outbox(t.project.environments.development.id);
    const body = messages.find((m) => m.recipient === to)?.body ?? "";
    const code = /\b(\d{6})\b/.exec(body)?.[1];
    if (!code) throw new Error(`no code for ${to} in the outbox`);
    return code;
  }

  for (const [name, variant] of Object.entries(NO_BODY)) {
    it(`open, complete, consume and device detach accept ${name}`, async () => {
      const user = `edge-${name.replace(/\W+/g, "-")}`;
      const c = await challenged(user);
      const opened = await post(`/v3/challenges/${c.id}/open`, c.headers, variant);
      expect(opened.statusCode, opened.body).toBe(200);
      expect(strict(ChallengeView).parse(opened.json()).challenge.status).toBe("presented");
      const sent = await post(`/v3/challenges/${c.id}/send`, c.headers, { payload: { channel: "email" } });
      expect(sent.statusCode, sent.body).toBe(200);
      const verified = await post(`/v3/challenges/${c.id}/verify`, c.headers, { payload: { code: await lastCode(`${user}@example.com`) } });
      expect(verified.statusCode, verified.body).toBe(200);

      const completed = await post(`/v3/challenges/${c.id}/complete`, c.headers, variant);
      expect(completed.statusCode, completed.body).toBe(200);
      expect(strict(ChallengeView).parse(completed.json()).challenge.status).toBe("completed");

      const consumed = await post(`/v3/evaluations/${c.evaluation_id}/consume`, t.auth, variant);
      expect(consumed.statusCode, consumed.body).toBe(200);
      const evaluation = strict(Evaluation).parse(consumed.json());
      expect(evaluation.consumed).toBe(true);
      // Consumed once, however the second call is labelled.
      expect((await post(`/v3/evaluations/${c.evaluation_id}/consume`, t.auth, variant)).statusCode).toBe(409);

      const detached = await post(`/v3/devices/${evaluation.device}/detach`, t.auth, variant);
      expect(detached.statusCode, detached.body).toBe(200);
      expect(detached.json().status).toBe("detached");
    });
  }

  it("the way back from a challenge is the page the user came from, only on an allowed origin", async () => {
    await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", ["https://app.example.com"]);
    const from = async (user: string, url: string) => {
      const c = await challengedEvaluation(t, "edge", user, { email: `${user}@example.com`, url });
      return strict(ChallengeView).parse(
        (await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}/view`, headers: c.headers })).json(),
      );
    };
    expect((await from("back-ok", "https://app.example.com/login?next=%2Fbilling")).back_url).toBe(
      "https://app.example.com/login?next=%2Fbilling",
    );
    // The browser names the page: one on another origin is the attacker's, and no link leads there.
    const evil = await from("back-evil", "https://evil.example/phish");
    expect(evil.back_url).toBeUndefined();
    expect(evil.success_url).toBeUndefined();
  });

  it("the heartbeat tells a kicked browser to log out, once, and nobody else; it is limited per browser", async () => {
    const token = "hb-token-kicked-xxxx";
    const beat = (visitor_token: string, client_id = t.clientId) =>
      t.app.inject({ method: "POST", url: "/v3/client/heartbeat", payload: { client_id, visitor_token } });
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/evaluate/login",
      headers: t.auth,
      payload: { user: "hb-user", email: "hb@example.com" },
    });
    expect(r.statusCode).toBe(200);
    const client = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "hb-user", signals: { components: fakeComponents("hb"), visitor_token: token } },
    });
    const device = strict(Evaluation).parse(
      (await t.app.inject({ method: "GET", url: `/v3/evaluations/${client.json().evaluation_id}`, headers: t.auth })).json(),
    ).device;
    expect((await beat(token)).json()).toEqual({ logout: false });
    await t.app.inject({ method: "POST", url: `/v3/devices/${device}/detach`, headers: t.auth });
    // Another browser's token, or the right token under another project's client id, learns nothing.
    expect((await beat("hb-token-someone-else")).json()).toEqual({ logout: false });
    const other = await t.services.repos.projects.create("Elsewhere");
    expect((await beat(token, other.environments.development.client_id)).json()).toEqual({ logout: false });
    expect((await beat(token)).json()).toEqual({ logout: true });
    expect((await beat(token)).json()).toEqual({ logout: false });
    const short = await beat("short");
    expect(short.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(short.json()).error.param).toBe("visitor_token");
    let limited = 0;
    for (let i = 0; i < HEARTBEATS_PER_MINUTE; i++) if ((await beat("hb-token-chatty-xxxx")).statusCode === 429) limited++;
    expect(limited).toBe(0);
    const over = await beat("hb-token-chatty-xxxx");
    expect(over.statusCode).toBe(429);
    expect(over.headers["retry-after"]).toBeDefined();
  });

  it("an admin overrides a pending challenge with the secret key: overridden, the device admitted, an event with the reason", async () => {
    const c = await challenged("override-me");
    const path = `/v3/challenges/${c.id}/override`;
    // The challenge link the user holds cannot resolve its own challenge.
    const byLink = await post(path, c.headers, {});
    expect(byLink.statusCode).toBe(401);
    const done = await post(path, t.auth, { payload: { reason: "verified by phone by support" } });
    expect(done.statusCode, done.body).toBe(200);
    expect(strict(Challenge).parse(done.json())).toMatchObject({ id: c.id, status: "overridden" });
    const ev = strict(Evaluation).parse(
      (await t.app.inject({ method: "GET", url: `/v3/evaluations/${c.evaluation_id}`, headers: t.auth })).json(),
    );
    expect(ev.challenge?.status).toBe("overridden");
    const devices = (await t.app.inject({ method: "GET", url: "/v3/user/override-me/devices", headers: t.auth })).json() as {
      id: string;
      status: string;
    }[];
    expect(devices.find((d) => d.id === ev.device)?.status).toBe("attached");
    const events = await t.services.repos.db
      .selectFrom("webhook_events")
      .select("payload")
      .where("event", "=", "challenge.overridden")
      .execute();
    const payload = events.map((e) => strict(ChallengeOverriddenEvent).parse(JSON.parse(e.payload))).find((p) => p.challenge.id === c.id);
    expect(payload).toMatchObject({ account: "override-me", reason: "verified by phone by support", challenge: { status: "overridden" } });
    // Only a pending challenge can be overridden; no body at all is fine.
    const again = await post(path, t.auth, NO_BODY["no body"]!);
    expect(again.statusCode).toBe(409);
    expect(strict(ErrorBody).parse(again.json()).error.code).toBe("invalid_transition");
    const other = await challenged("override-empty");
    expect((await post(`/v3/challenges/${other.id}/override`, t.auth, NO_BODY["an empty JSON body"]!)).statusCode).toBe(200);
  });

  it("an operation that needs a body refuses an empty one with a 400, not a 500", async () => {
    const r = await post("/v3/lists/blocked/add", t.auth, NO_BODY["an empty JSON body"]!);
    expect(r.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(r.json()).error.code).toBe("invalid_request");
    const send = await post("/v3/evaluate/edge", t.auth, {});
    expect(send.statusCode).toBe(400);
  });

  it("GET /v3/policies paginates with page and limit, highest priority first", async () => {
    for (let i = 0; i < 14; i++) {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: t.auth,
        payload: { name: `Paged ${i}`, actions: ["paged"], priority: i, conditions: { all: [] }, verdict: "allow" },
      });
      expect(r.statusCode).toBe(201);
    }
    const PolicyPage = Page(Policy);
    const get = async (query: string) => {
      const r = await t.app.inject({ method: "GET", url: `/v3/policies${query}`, headers: t.auth });
      expect(r.statusCode, r.body).toBe(200);
      return strict(PolicyPage).parse(r.json());
    };
    const all = await get("?limit=100");
    expect(all.total).toBe(all.data.length);
    expect(all.total).toBeGreaterThan(20);
    const first = await get("");
    expect(first).toMatchObject({ page: 1, limit: 20, total: all.total });
    expect(first.data).toHaveLength(20);
    const pages = [await get("?limit=10&page=1"), await get("?limit=10&page=2"), await get("?limit=10&page=3")];
    expect(pages.flatMap((p) => p.data.map((x) => x.id))).toEqual(all.data.map((x) => x.id));
    const priorities = all.data.map((p) => p.priority);
    expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
    const tooMany = await t.app.inject({ method: "GET", url: "/v3/policies?limit=101", headers: t.auth });
    expect(tooMany.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(tooMany.json()).error.param).toBe("limit");
  });
});
