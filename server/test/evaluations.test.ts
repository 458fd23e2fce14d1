// Evaluations API (docs/client-api.md, docs/server-api.md): client evaluate → read → consume once; errors; isolation; on both stores.
import { ClientEvaluateResponse, ErrorBody, Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describeStores("evaluations on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  async function clientEvaluate(body: Record<string, unknown>, action = "login", headers: Record<string, string> = {}) {
    return t.app.inject({ method: "POST", url: `/v3/client/evaluate/${action}`, payload: { client_id: t.clientId, ...body }, headers });
  }

  it("a client evaluation is read with the secret as the full evaluation object", async () => {
    const res = await clientEvaluate({
      user: "acct_42",
      email: "a@example.com",
      signals: { components: fakeComponents("a"), visitor_token: "tok-aaaaaaaa" },
    });
    expect(res.statusCode).toBe(200);
    const { evaluation_id } = strict(ClientEvaluateResponse).parse(res.json());
    const got = await t.app.inject({ method: "GET", url: `/v3/evaluations/${evaluation_id}`, headers: t.auth });
    expect(got.statusCode).toBe(200);
    const ev = strict(Evaluation).parse(got.json());
    expect(ev.id).toBe(evaluation_id);
    expect(ev.action).toBe("login");
    expect(ev.user?.id).toBe("acct_42");
    expect(ev.user?.service_id).toMatch(/^usr_/);
    expect(ev.user?.email).toBe("a@example.com");
    expect(ev.fingerprint?.confidence).toBe(1);
    expect(ev.device).toMatch(/^dev_/);
    expect(ev.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(ev.consumed).toBe(false);
  });

  it("risks carry stable ids: the definition per category, the risk's own id per evaluation, the same on every read", async () => {
    const evaluateOnce = async () => {
      const r = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "risk-ids" } });
      expect(r.statusCode).toBe(200);
      return strict(Evaluation).parse(r.json());
    };
    const [a, b] = [await evaluateOnce(), await evaluateOnce()];
    const reread = strict(Evaluation).parse(
      (await t.app.inject({ method: "GET", url: `/v3/evaluations/${a.id}`, headers: t.auth })).json(),
    );
    expect(reread.risks).toEqual(a.risks);
    expect(a.risks?.map((r) => r.definition)).toEqual(a.risks?.map((r) => `rdef_${r.name}`));
    expect(b.risks?.map((r) => r.definition)).toEqual(a.risks?.map((r) => r.definition));
    const ids = [...(a.risks ?? []), ...(b.risks ?? [])].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(a.risks?.find((r) => r.name === "ato")?.id).toBe(`rsk_${a.id.slice(3)}.ato`);
  });

  it("an evaluation lists the risks detected (a score above 0), not every category", async () => {
    // A backend login of a user met before: most categories score 0, and those are not listed (eight are scored).
    const quiet = async () => {
      const r = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "risk-quiet" } });
      expect(r.statusCode).toBe(200);
      return strict(Evaluation).parse(r.json());
    };
    await quiet();
    const calm = await quiet();
    expect(calm.risks?.length ?? 0).toBeLessThan(8);
    for (const r of calm.risks ?? []) expect(r.score).toBeGreaterThan(0);
    const stored = await t.services.repos.evaluations.find(t.project.environments.development.id, calm.id);
    expect((JSON.parse(stored?.risks ?? "[]") as unknown[]).length).toBe(8);
    // A client login claiming an email other than the account's: the ato risk is detected and listed with its score.
    const update = await t.app.inject({
      method: "POST",
      url: "/v3/user/risk-quiet/update",
      headers: t.auth,
      payload: { email: "risk-quiet@example.com" },
    });
    expect(update.statusCode, update.body).toBe(204);
    const claimed = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: {
        client_id: t.clientId,
        user: "risk-quiet",
        email: "someone-else@example.com",
        signals: { components: fakeComponents("rq") },
      },
    });
    expect(claimed.statusCode, claimed.body).toBe(200);
    const read = strict(Evaluation).parse(
      (await t.app.inject({ method: "GET", url: `/v3/evaluations/${claimed.json().evaluation_id}`, headers: t.auth })).json(),
    );
    expect(read.risks?.find((r) => r.name === "ato")?.indicators).toContain("contact_mismatch");
    for (const r of read.risks ?? []) expect(r.score).toBeGreaterThan(0);
  });

  it("identical components give the same fingerprint; different ones another", async () => {
    const ids = [];
    for (const seed of ["same", "same", "other"]) {
      const r = await clientEvaluate({ user: "fp_user", signals: { components: fakeComponents(seed) } });
      const ev = strict(Evaluation).parse(
        (await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth })).json(),
      );
      ids.push(ev.fingerprint?.id);
    }
    expect(ids[0]).toBeDefined();
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it("consume answers 200 once, then 409 already_consumed", async () => {
    const { evaluation_id } = (await clientEvaluate({ user: "c1" })).json();
    const first = await t.app.inject({ method: "POST", url: `/v3/evaluations/${evaluation_id}/consume`, headers: t.auth });
    expect(first.statusCode).toBe(200);
    const ev = strict(Evaluation).parse(first.json());
    expect(ev.consumed).toBe(true);
    expect(ev.consumed_at).toMatch(/Z$/);
    const second = await t.app.inject({ method: "POST", url: `/v3/evaluations/${evaluation_id}/consume`, headers: t.auth });
    expect(second.statusCode).toBe(409);
    expect(strict(ErrorBody).parse(second.json()).error.code).toBe("already_consumed");
  });

  it("100 concurrent consumes give exactly one 200", async () => {
    const { evaluation_id } = (await clientEvaluate({ user: "race" })).json();
    const results = await Promise.all(
      Array.from({ length: 100 }, () => t.app.inject({ method: "POST", url: `/v3/evaluations/${evaluation_id}/consume`, headers: t.auth })),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(99);
  });

  it("no secret is 401 with the error body; an unknown secret too", async () => {
    const { evaluation_id } = (await clientEvaluate({})).json();
    for (const headers of [{}, { authorization: "Bearer sk_test_nope" }, { authorization: "Basic abc" }]) {
      const r = await t.app.inject({ method: "GET", url: `/v3/evaluations/${evaluation_id}`, headers });
      expect(r.statusCode).toBe(401);
      expect(strict(ErrorBody).parse(r.json()).error.code).toBe("unauthorized");
    }
  });

  it("another project's secret gets 404, as if the evaluation did not exist", async () => {
    const { evaluation_id } = (await clientEvaluate({})).json();
    const r = await t.app.inject({
      method: "GET",
      url: `/v3/evaluations/${evaluation_id}`,
      headers: { authorization: `Bearer ${t.otherSecret}` },
    });
    expect(r.statusCode).toBe(404);
    const c = await t.app.inject({
      method: "POST",
      url: `/v3/evaluations/${evaluation_id}/consume`,
      headers: { authorization: `Bearer ${t.otherSecret}` },
    });
    expect(c.statusCode).toBe(404);
  });

  it("a revoked key stops working at once", async () => {
    const key = await t.services.repos.projects.createKey(t.project.id, "development");
    const headers = { authorization: `Bearer ${key?.secret}` };
    expect((await t.app.inject({ method: "GET", url: "/v3/evaluations/ev_x", headers })).statusCode).toBe(404);
    expect(await t.services.repos.projects.revokeKey(key!.id)).toBe(true);
    expect((await t.app.inject({ method: "GET", url: "/v3/evaluations/ev_x", headers })).statusCode).toBe(401);
  });

  it("bad input is a 400 naming the field, never a 500", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ user: 42 }, "user"],
      [{ email: ["x"] }, "email"],
      [{ phone: "0612" }, "phone"],
      [{ signals: { visitor_token: 5 } }, "signals.visitor_token"],
      [{ metadata: "x" }, "metadata"],
    ];
    for (const [body, param] of cases) {
      const r = await clientEvaluate(body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      const err = strict(ErrorBody).parse(r.json()).error;
      expect(err.code).toBe("invalid_request");
      expect(err.param).toBe(param);
    }
    const malformed = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.message).toMatch(/Malformed JSON/);
  });

  it("unknown routes and ids are 404 with the error body", async () => {
    const r = await t.app.inject({ method: "GET", url: "/v3/nothing-here", headers: t.auth });
    expect(r.statusCode).toBe(404);
    expect(strict(ErrorBody).parse(r.json()).error.code).toBe("not_found");
    const e = await t.app.inject({ method: "GET", url: "/v3/evaluations/ev_missing", headers: t.auth });
    expect(e.statusCode).toBe(404);
  });

  it("an unknown client id is 401; a foreign origin is 403; localhost is allowed in development", async () => {
    const unknown = await t.app.inject({ method: "POST", url: "/v3/client/evaluate/login", payload: { client_id: "pk_test_nope" } });
    expect(unknown.statusCode).toBe(401);
    const foreign = await clientEvaluate({}, "login", { origin: "https://evil.example" });
    expect(foreign.statusCode).toBe(403);
    // The page reads the refusal (the error alone: server/test/mistakes.test.ts), not a silent CORS failure.
    expect(Object.keys(foreign.json())).toEqual(["error"]);
    const local = await clientEvaluate({}, "login", { origin: "http://localhost:5173" });
    expect(local.statusCode).toBe(200);
    expect(local.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
  });

  it("the client API takes JSON sent as text/plain (no CORS preflight) and refuses malformed text", async () => {
    const ok = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: JSON.stringify({ client_id: t.clientId, user: "plain" }),
      headers: { "content-type": "text/plain;charset=UTF-8", origin: "http://localhost:3000" },
    });
    expect(ok.statusCode).toBe(200);
    expect(strict(ClientEvaluateResponse).parse(ok.json()).evaluation_id).toMatch(/^ev_/);
    const bad = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: "{nope",
      headers: { "content-type": "text/plain" },
    });
    expect(bad.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(bad.json()).error.code).toBe("invalid_request");
  });

  it("a backend evaluates a custom action with content and gets the evaluation object", async () => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/evaluate/post_comment",
      headers: t.auth,
      payload: { user: "writer", ip: "203.0.113.9", user_agent: "Mozilla/5.0", content: { text: "hello", links: [] } },
    });
    expect(r.statusCode).toBe(200);
    const ev = strict(Evaluation).parse(r.json());
    expect(ev.action).toBe("post_comment");
    expect(ev.user?.id).toBe("writer");
    const bad = await t.app.inject({ method: "POST", url: "/v3/evaluate/post_comment", headers: t.auth, payload: { ip: "not-an-ip" } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe("ip");
  });
});
