// Answers are serialised from the contract's schemas (app.ts): a field the contract does not declare (a code hash,
// a webhook secret, a column added to a row) never reaches the wire, and an answer that does not match its schema
// is refused loudly (500) instead of being sent. The test's strict parser (strict.ts) catches an extra key itself.
import { Evaluation, WebhookEndpointList } from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers.js";
import { droppedKeys, strict } from "./strict.js";

describe("responses serialised from the contract", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(async () => t?.close());

  it("internal fields added to an evaluation (top level and nested) are not in the answer", async () => {
    const made = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "leaky" } });
    expect(made.statusCode).toBe(200);
    const id = strict(Evaluation).parse(made.json()).id;
    const service = t.services.evaluationsService;
    const get = service.get.bind(service);
    service.get = async (...args: Parameters<typeof get>) => {
      const ev = await get(...args);
      if (!ev) return ev;
      const leaky = { ...ev, code_hash: "sha256:secret", user: ev.user && { ...ev.user, password_hash: "x" } } as typeof ev;
      return leaky;
    };
    try {
      const r = await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth });
      expect(r.statusCode).toBe(200);
      expect(r.body).not.toContain("code_hash");
      expect(r.body).not.toContain("password_hash");
      const ev = strict(Evaluation).parse(r.json());
      expect(ev.id).toBe(id);
      expect(ev.user?.id).toBe("leaky");
    } finally {
      service.get = get;
    }
  });

  it("a webhook endpoint's secret on a listed row is stripped (only the create answer carries it)", async () => {
    const created = await t.app.inject({
      method: "POST",
      url: "/v3/webhook-endpoints",
      headers: t.auth,
      payload: { url: "https://hooks.example.com/tessera", events: ["challenge.completed"] },
    });
    expect(created.statusCode).toBe(201);
    const secret = created.json().secret as string;
    expect(secret).toMatch(/^whsec_/);
    const endpoints = t.services.webhookEndpoints;
    const list = endpoints.list.bind(endpoints);
    endpoints.list = async (...args: Parameters<typeof list>) => (await list(...args)).map((e) => ({ ...e, secret, secret_sealed: "x" }));
    try {
      const r = await t.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: t.auth });
      expect(r.statusCode).toBe(200);
      expect(r.body).not.toContain(secret);
      expect(r.body).not.toContain("secret");
      expect(strict(WebhookEndpointList).parse(r.json()).data).toHaveLength(1);
    } finally {
      endpoints.list = list;
    }
  });

  it("an answer that does not match its schema is refused with a 500, never sent", async () => {
    const service = t.services.evaluationsService;
    const get = service.get.bind(service);
    service.get = async () => ({ id: "ev_broken", verdict: 42 }) as unknown as Awaited<ReturnType<typeof get>>;
    try {
      const r = await t.app.inject({ method: "GET", url: "/v3/evaluations/ev_broken", headers: t.auth });
      expect(r.statusCode).toBe(500);
      expect(r.json().error.code).toBe("internal");
      expect(r.body).not.toContain("ev_broken");
    } finally {
      service.get = get;
    }
  });

  it("the tests' strict parser fails on a key the contract does not declare, at any depth", () => {
    expect(droppedKeys({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 2 } })).toEqual(["$.b.d"]);
    expect(droppedKeys([{ a: 1, x: 1 }], [{ a: 1 }])).toEqual(["$[0].x"]);
    expect(() => strict(WebhookEndpointList).parse({ data: [], extra: true })).toThrow(/\$\.extra/);
  });
});
