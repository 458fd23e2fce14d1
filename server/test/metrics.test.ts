// GET /metrics and the access log (docs/operations.md): the counters move with traffic (evaluations by action and verdict,
// latency, challenge sends, verifications and outcomes, webhook deliveries and the outbox's depth, store errors), only
// loopback or a METRICS_TOKEN holder may read them, and an evaluation's access-log line names its id and verdict — on
// both stores.
import { Writable } from "node:stream";
import { Evaluation } from "@tessera/sdk/contract";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { createServices, type Services } from "../src/services.js";
import {
  BROWSER_UA,
  describeStores,
  fakeComponents,
  migratedDatabase,
  startTestApp,
  type TestApp,
  type TestDatabase,
  testConfig,
} from "./helpers.js";
import { strict } from "./strict.js";
import { eventually, startReceiver } from "./webhook-receiver.js";

/** One sample of the exposition: the metric's value for exactly these labels (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.keys(labels).length === Object.keys(have).length && Object.entries(labels).every(([k, v]) => have[k] === v))
      return Number(m[3]);
  }
  return 0;
}

describeStores("metrics on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { CHALLENGE_IP_RATE_LIMIT: "100000", WEBHOOK_POLL_MS: "20", WEBHOOK_RETRY_BASE_MS: "30" });
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Challenge (test)",
        actions: ["metrics_challenge"],
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

  const scrape = async () => {
    const r = await t.app.inject({ method: "GET", url: "/metrics" });
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^text\/plain/);
    return r.body;
  };

  it("evaluations are counted by action, verdict and source, with their latency", async () => {
    const before = await scrape();
    const verdicts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        payload: {
          client_id: t.clientId,
          user: `m${i}`,
          signals: { components: fakeComponents(`m${i}`), visitor_token: `vt-metrics-${i}-xxxxxx` },
        },
      });
      const id = (r.json() as { evaluation_id: string }).evaluation_id;
      verdicts.push(
        strict(Evaluation).parse((await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth })).json()).verdict,
      );
    }
    const server = strict(Evaluation).parse(
      (await t.app.inject({ method: "POST", url: "/v3/evaluate/post_comment", headers: t.auth, payload: { user: "m0" } })).json(),
    );
    const after = await scrape();
    for (const verdict of new Set(verdicts)) {
      const labels = { action: "login", verdict, source: "client" };
      expect(sample(after, "tessera_evaluations_total", labels) - sample(before, "tessera_evaluations_total", labels)).toBe(
        verdicts.filter((v) => v === verdict).length,
      );
    }
    const custom = { action: "post_comment", verdict: server.verdict, source: "server" };
    expect(sample(after, "tessera_evaluations_total", custom) - sample(before, "tessera_evaluations_total", custom)).toBe(1);
    const count = (text: string, source: string) => sample(text, "tessera_evaluation_duration_seconds_count", { source });
    expect(count(after, "client") - count(before, "client")).toBe(3);
    expect(sample(after, "tessera_evaluation_duration_seconds_bucket", { source: "client", le: "+Inf" })).toBe(count(after, "client"));
  });

  it("a challenge's send, verifications and completion are counted", async () => {
    const before = await scrape();
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/metrics_challenge",
      payload: { client_id: t.clientId, user: "mc", email: "mc@example.com", signals: { components: fakeComponents("mc") } },
    });
    const id = new URL((r.json() as { redirect: string }).redirect).searchParams.get("challenge") as string;
    const call = (op: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: "POST", url: `/v3/challenges/${id}/${op}`, headers: t.auth, payload });
    expect((await call("send", { channel: "email" })).statusCode).toBe(200);
    const outbox = (await t.app.inject({ method: "GET", url: "/v3/dev/outbox", headers: t.auth })).json() as {
      data: { challenge_id: string; body: string }[];
    };
    const code = /\b(\d{6})\b/.exec(outbox.data.find((m) => m.challenge_id === id)?.body ?? "")?.[1] as string;
    const wrong = code === "000000" ? "111111" : "000000";
    expect((await call("verify", { code: wrong })).statusCode).toBe(400);
    expect((await call("verify", { code })).statusCode).toBe(200);
    expect((await call("complete", {})).statusCode).toBe(200);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(moved("tessera_challenge_sends_total", { channel: "email", outcome: "sent" })).toBe(1);
    expect(moved("tessera_challenge_verifications_total", { outcome: "invalid_code" })).toBe(1);
    expect(moved("tessera_challenge_verifications_total", { outcome: "verified" })).toBe(1);
    expect(moved("tessera_challenge_outcomes_total", { outcome: "completed" })).toBe(1);
  });

  it("webhook deliveries are counted by outcome and the outbox's depth is shown", async () => {
    const receiver = await startReceiver({ failFirst: 1 });
    try {
      const before = await scrape();
      const ep = await t.app.inject({
        method: "POST",
        url: "/v3/webhook-endpoints",
        headers: t.auth,
        payload: { url: receiver.url, events: ["challenge.initiated"] },
      });
      expect(ep.statusCode).toBe(201);
      await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/metrics_challenge",
        payload: { client_id: t.clientId, user: "mw", email: "mw@example.com", signals: { components: fakeComponents("mw") } },
      });
      await eventually(() => receiver.received.length || undefined, "the delivery");
      // The receiver records the body before its answer reaches the worker, which counts the outcome only then.
      let after = "";
      const moved = (outcome: string) =>
        sample(after, "tessera_webhook_deliveries_total", { outcome }) - sample(before, "tessera_webhook_deliveries_total", { outcome });
      await eventually(async () => {
        after = await scrape();
        return moved("succeeded") > 0 || undefined;
      }, "the success to be counted");
      expect(moved("retry")).toBe(1);
      expect(moved("succeeded")).toBe(1);
      expect(after).toMatch(/^tessera_webhook_queue_depth \d+$/m);
    } finally {
      await receiver.close();
    }
  });

  it("store errors are counted by code", async () => {
    const before = await scrape();
    await expect(
      t.services.store.db
        .selectFrom("no_such_table" as never)
        .selectAll()
        .execute(),
    ).rejects.toThrow();
    const after = await scrape();
    const total = (text: string) =>
      text
        .split("\n")
        .filter((l) => l.startsWith("tessera_store_errors_total{"))
        .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
    expect(total(after) - total(before)).toBe(1);
    expect(after).toMatch(
      kind === "sqlite" ? /tessera_store_errors_total\{code="SQLITE_ERROR"\}/ : /tessera_store_errors_total\{code="42P01"\}/,
    );
  });

  it("are refused to other addresses and through a proxy", async () => {
    expect((await t.app.inject({ method: "GET", url: "/metrics", remoteAddress: "203.0.113.5" })).statusCode).toBe(403);
    expect((await t.app.inject({ method: "GET", url: "/metrics", headers: { "x-forwarded-for": "203.0.113.5" } })).statusCode).toBe(403);
  });
});

describe("metrics with METRICS_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", { METRICS_TOKEN: "metrics-token-0123456789" });
  });
  afterAll(async () => t?.close());

  it("answer the token's holder from anywhere, and nobody else, loopback included", async () => {
    const get = (headers: Record<string, string>, remoteAddress = "203.0.113.5") =>
      t.app.inject({ method: "GET", url: "/metrics", headers, remoteAddress });
    expect((await get({ authorization: "Bearer metrics-token-0123456789" })).statusCode).toBe(200);
    expect((await get({ authorization: "Bearer metrics-token-wrong-value" })).statusCode).toBe(401);
    expect((await get({}, "127.0.0.1")).statusCode).toBe(401);
  });
});

describeStores("the access log on %s", (kind) => {
  let db: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  const lines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    db = await migratedDatabase(kind);
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split("\n")) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    services = await createServices(testConfig({ ...db.env, LOG_LEVEL: "info" }), { logDestination: sink });
    app = await buildApp(services);
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await db?.drop();
  });

  it("names each evaluation's id and verdict on its request line", async () => {
    const project = await services.repos.projects.create("Access log");
    const secret = project.environments.development.secret;
    const client = await app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "user-agent": BROWSER_UA },
      payload: { client_id: project.environments.development.client_id, user: "logged", signals: { components: fakeComponents("log") } },
    });
    const clientId = (client.json() as { evaluation_id: string }).evaluation_id;
    const server = strict(Evaluation).parse(
      (
        await app.inject({
          method: "POST",
          url: "/v3/evaluate/login",
          headers: { authorization: `Bearer ${secret}` },
          payload: { user: "x" },
        })
      ).json(),
    );
    const stored = strict(Evaluation).parse(
      (await app.inject({ method: "GET", url: `/v3/evaluations/${clientId}`, headers: { authorization: `Bearer ${secret}` } })).json(),
    );
    await eventually(() => (lines.filter((l) => l.msg === "request").length >= 3 ? true : undefined), "three request lines");
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.find((l) => l.path === "/v3/client/evaluate/login")).toMatchObject({
      status: 200,
      evaluation: clientId,
      verdict: stored.verdict,
    });
    expect(requests.find((l) => l.path === "/v3/evaluate/login")).toMatchObject({
      status: 200,
      evaluation: server.id,
      verdict: server.verdict,
    });
    // Reading an evaluation is not making one: no evaluation on its line.
    expect(requests.find((l) => l.path === `/v3/evaluations/${clientId}`)?.evaluation).toBeUndefined();
    // Secrets never reach the log.
    expect(JSON.stringify(lines)).not.toContain(secret);
  });
});
