// Client API rate limits (docs/server-api.md): per IP and per client id, 429 with Retry-After and the error body; on both
// stores (in memory on SQLite, in PostgreSQL otherwise). Agreement across instances is in scale-out.test.ts.
import { ErrorBody } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describeStores("client API rate limits on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "3", CLIENT_ID_RATE_LIMIT: "8" });
  });
  afterAll(async () => t?.close());

  const evaluate = (ip: string, clientId = t.clientId) =>
    t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: clientId },
      headers: { "x-forwarded-for": ip },
    });

  it("past the per-IP limit answers 429 with Retry-After and the error body; other IPs are unaffected", async () => {
    for (let i = 0; i < 3; i++) expect((await evaluate("198.51.100.1")).statusCode).toBe(200);
    const refused = await evaluate("198.51.100.1");
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(strict(ErrorBody).parse(refused.json()).error).toMatchObject({ status: 429, code: "rate_limited" });
    expect((await evaluate("198.51.100.2")).statusCode).toBe(200);
  });

  it("requests refused for their IP are not charged to the client id: one noisy IP cannot use up everyone's budget", async () => {
    // 4 hits on this client id so far (3 + 1 from the first test; its refused request was not charged). The noisy IP
    // asks 20 more times and is refused each time; the client id still has room for 4 more from other IPs.
    for (let i = 0; i < 20; i++) expect((await evaluate("198.51.100.1")).statusCode).toBe(429);
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await evaluate(`192.0.2.${i + 1}`)).statusCode);
    expect(codes).toEqual([200, 200, 200, 200]);
  });

  it("past the per-client-id limit answers 429 whatever the IP", async () => {
    // 8 hits on this client id: the next ones are refused from any fresh IP.
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await evaluate(`203.0.113.${i + 1}`)).statusCode);
    expect(codes).toEqual([429, 429, 429]);
  });

  it("the server API is not limited by the client limits", async () => {
    const r = await t.app.inject({
      method: "GET",
      url: "/v3/evaluations/ev_nope",
      headers: { ...t.auth, "x-forwarded-for": "198.51.100.1" },
    });
    expect(r.statusCode).toBe(404);
  });
});
