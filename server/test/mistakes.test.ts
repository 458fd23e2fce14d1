// A newcomer's mistakes answered where they happen, on both stores: a wrong client id, or a page on an origin the
// client id does not allow, reaches the page as the server's own message (not "could not reach the server"), and the
// refusal carries nothing but the error.
import { ErrorBody } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

const SHOP = "https://shop.example";

describeStores("mistakes answered where they happen on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await t.services.repos.projects.setAllowedOrigins(t.project.id, "production", [SHOP]);
  });
  afterAll(async () => {
    await t?.close();
  });

  const prodClientId = () => t.project.environments.production.client_id;
  const evaluate = (clientId: string, origin: string | undefined, body: Record<string, unknown> = {}) =>
    t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "content-type": "text/plain;charset=UTF-8", ...(origin ? { origin } : {}) },
      payload: JSON.stringify({ client_id: clientId, user: "acct_1", signals: { components: fakeComponents("mistakes") }, ...body }),
    });
  const evaluationsOf = async (secret: string) =>
    (
      (await t.app.inject({ method: "GET", url: "/v3/evaluations?limit=100", headers: { authorization: `Bearer ${secret}` } })).json() as {
        data: unknown[];
      }
    ).data.length;

  it("a wrong client id from a page: 401 that the page can read, saying what to pass", async () => {
    const r = await evaluate("pk_test_typo", SHOP);
    expect(r.statusCode).toBe(401);
    expect(r.headers["access-control-allow-origin"]).toBe(SHOP);
    expect(r.headers.vary).toMatch(/Origin/);
    const { error } = strict(ErrorBody).parse(r.json());
    expect(error.code).toBe("unauthorized");
    expect(error.message).toMatch(/^Unknown client_id: pass the client id of one of your project's environments/);
  });

  it("a client id used from an origin it does not allow: 403 the page can read, naming the origin and the fix; nothing done", async () => {
    const before = await evaluationsOf(t.project.environments.production.secret);
    const r = await evaluate(prodClientId(), "https://evil.example");
    expect(r.statusCode).toBe(403);
    expect(r.headers["access-control-allow-origin"]).toBe("https://evil.example");
    // The refusal is the error and nothing else: no evaluation id, no data of the environment.
    expect(Object.keys(r.json())).toEqual(["error"]);
    const { error } = strict(ErrorBody).parse(r.json());
    expect(error.code).toBe("forbidden");
    expect(error.message).toContain("Origin https://evil.example is not allowed for this client_id");
    expect(error.message).toContain("production environment's allowed origins");
    expect(await evaluationsOf(t.project.environments.production.secret)).toBe(before);
  });

  it("a bad body from a refused origin is a readable 400 naming the field, and still nothing else", async () => {
    const r = await evaluate(prodClientId(), "https://evil.example", { user: 42 });
    expect(r.statusCode).toBe(400);
    expect(r.headers["access-control-allow-origin"]).toBe("https://evil.example");
    expect(Object.keys(r.json())).toEqual(["error"]);
    expect(strict(ErrorBody).parse(r.json()).error.param).toBe("user");
  });

  it("look-alike: the allowed origin gets its answer with CORS; a request without Origin (not a page) gets no CORS header", async () => {
    const allowed = await evaluate(prodClientId(), SHOP);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe(SHOP);
    expect(allowed.json()).toHaveProperty("evaluation_id");
    const server = await evaluate("pk_test_typo", undefined);
    expect(server.statusCode).toBe(401);
    expect(server.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("the device operations refuse the same way (heartbeat, attach)", async () => {
    for (const [url, body] of [
      ["/v3/client/heartbeat", { client_id: "pk_test_typo", visitor_token: "tok-mistakes-xxxxxxxx" }],
      ["/v3/client/devices/attach", { client_id: prodClientId(), user: "acct_1" }],
    ] as const) {
      const r = await t.app.inject({ method: "POST", url, headers: { origin: "https://evil.example" }, payload: body });
      expect(r.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(r.headers["access-control-allow-origin"], url).toBe("https://evil.example");
      expect(Object.keys(r.json()), url).toEqual(["error"]);
    }
  });
});
