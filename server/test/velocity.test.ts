// Velocity counts see bursts (docs/policies.md, docs/operations.md): evaluations of one user, one IP or one browser that arrive together
// each count the others, as a stuffing burst does — on both stores. Counting committed evaluations could not: on
// PostgreSQL 20 concurrent evaluations of one user all read event_count 1.
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BROWSER_UA, describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** A burst of this many is what the issue saw go uncounted. */
const BURST = 20;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describeStores("velocity under concurrency on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const checks = (body: string) => strict(Evaluation).parse(JSON.parse(body)).checks as Record<string, number>;

  it(`${BURST} concurrent evaluations of one user count 1…${BURST}`, async () => {
    const answers = await Promise.all(
      range(BURST).map(() =>
        t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "acct_burst", ip: "203.0.113.7" } }),
      ),
    );
    for (const a of answers) expect(a.statusCode).toBe(200);
    const counts = answers.map((a) => checks(a.body));
    expect(counts.map((c) => Number(c.event_count)).sort((a, b) => a - b)).toEqual(range(BURST));
    expect(counts.map((c) => Number(c.ip_event_count)).sort((a, b) => a - b)).toEqual(range(BURST));
  });

  it(`${BURST} concurrent client evaluations of one browser count 1…${BURST} for the browser`, async () => {
    // The browser is known first, so that every evaluation of the burst resolves to the same fingerprint.
    const body = {
      client_id: t.clientId,
      signals: { components: fakeComponents("burst-browser"), visitor_token: "vt-burst-browser-xxxxxx" },
    };
    const headers = { "user-agent": BROWSER_UA };
    const first = await t.app.inject({ method: "POST", url: "/v3/client/evaluate/visit", headers, payload: body });
    expect(first.statusCode).toBe(200);
    const answers = await Promise.all(
      range(BURST).map(() => t.app.inject({ method: "POST", url: "/v3/client/evaluate/visit", headers, payload: body })),
    );
    const ids = answers.map((a) => (JSON.parse(a.body) as { evaluation_id: string }).evaluation_id);
    const counts = await Promise.all(
      ids.map(async (id) => checks((await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth })).body)),
    );
    expect(counts.map((c) => Number(c.fingerprint_event_count)).sort((a, b) => a - b)).toEqual(range(BURST).map((n) => n + 1));
  });

  it("a user's count starts over with a fresh user and does not mix users", async () => {
    const one = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "acct_solo_a" } });
    const two = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "acct_solo_b" } });
    const three = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "acct_solo_a" } });
    expect([checks(one.body).event_count, checks(two.body).event_count, checks(three.body).event_count]).toEqual([1, 1, 2]);
  });
});
