// Webhooks (docs/webhooks.md): endpoints API, signed at-least-once delivery from the outbox with retries, disabling and
// re-sending, several workers sharing the outbox. Delivery across a SIGKILL and restart of the real server is in
// webhooks-process.test.ts.
import { DeviceDetachedEvent, ErrorBody, Page, WebhookDelivery, WebhookEndpoint, WebhookPayload } from "@tessera/sdk/contract";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../src/services.js";
import {
  describeStores,
  eventUser,
  fakeComponents,
  migratedDatabase,
  PG_AVAILABLE,
  startTestApp,
  type TestApp,
  testConfig,
} from "./helpers.js";
import { strict } from "./strict.js";
import { eventually, startReceiver } from "./webhook-receiver.js";

const FAST = { WEBHOOK_RETRY_BASE_MS: "30", WEBHOOK_POLL_MS: "20" };

async function deviceOf(t: TestApp, user: string, seed = user): Promise<string> {
  const r = await t.app.inject({
    method: "POST",
    url: "/v3/client/evaluate/login",
    payload: { client_id: t.clientId, user, signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` } },
  });
  const ev = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
  return ev.json().device as string;
}

describeStores("webhook endpoints on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { ...FAST, WEBHOOK_MAX_ATTEMPTS: "3" });
  });
  afterAll(async () => t?.close());

  const create = (payload: unknown, headers = t.auth) =>
    t.app.inject({ method: "POST", url: "/v3/webhook-endpoints", payload: payload as object, headers });

  it("registering answers 201 with a whsec_ secret once; listing never shows it", async () => {
    const r = await create({ url: "https://hooks.example.com/tessera", events: ["device.detached"], description: "ops" });
    expect(r.statusCode).toBe(201);
    const ep = strict(WebhookEndpoint).parse(r.json());
    expect(ep.secret).toMatch(/^whsec_/);
    expect(ep.enabled).toBe(true);
    const list = await t.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: t.auth });
    const found = list.json().data.find((e: WebhookEndpoint) => e.id === ep.id);
    expect(strict(WebhookEndpoint).parse(found).secret).toBeUndefined();
    expect(JSON.stringify(list.json())).not.toContain(ep.secret);
  });

  it("http is refused except to localhost in development; bad events and urls are 400 naming the field", async () => {
    for (const [payload, param] of [
      [{ url: "http://hooks.example.com/x", events: ["device.detached"] }, "url"],
      [{ url: "not a url", events: ["device.detached"] }, "url"],
      [{ url: "https://hooks.example.com/x", events: ["nope"] }, "events.0"],
      [{ url: "https://hooks.example.com/x", events: [] }, "events"],
    ] as const) {
      const r = await create(payload);
      expect(r.statusCode).toBe(400);
      expect(strict(ErrorBody).parse(r.json()).error.param).toBe(param);
    }
    expect((await create({ url: "http://127.0.0.1:9/x", events: ["device.detached"] })).statusCode).toBe(201);
    const prod = { authorization: `Bearer ${t.project.environments.production.secret}` };
    const r = await create({ url: "http://127.0.0.1:9/x", events: ["device.detached"] }, prod);
    expect(r.statusCode).toBe(400);
    expect(r.json().error.message).toMatch(/https/);
  });

  it("delete answers 204, then 404; another project's endpoint is 404", async () => {
    const ep = (await create({ url: "https://hooks.example.com/d", events: ["user.converted"] })).json();
    const other = await t.app.inject({
      method: "DELETE",
      url: `/v3/webhook-endpoints/${ep.id}`,
      headers: { authorization: `Bearer ${t.otherSecret}` },
    });
    expect(other.statusCode).toBe(404);
    expect((await t.app.inject({ method: "DELETE", url: `/v3/webhook-endpoints/${ep.id}`, headers: t.auth })).statusCode).toBe(204);
    expect((await t.app.inject({ method: "DELETE", url: `/v3/webhook-endpoints/${ep.id}`, headers: t.auth })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${ep.id}/deliveries`, headers: t.auth })).statusCode).toBe(404);
  });

  it("a receiver failing the first two attempts still gets the event once, verifiable with standardwebhooks", async () => {
    const receiver = await startReceiver({ failFirst: 2 });
    try {
      const ep = strict(WebhookEndpoint).parse((await create({ url: receiver.url, events: ["device.detached"] })).json());
      const device = await deviceOf(t, "wh_user");
      expect((await t.app.inject({ method: "POST", url: `/v3/devices/${device}/detach`, headers: t.auth })).statusCode).toBe(200);
      const got = await eventually(() => receiver.received[0], "the delivery");
      const payload = strict(DeviceDetachedEvent).parse(new Webhook(ep.secret as string).verify(got.body, got.headers));
      expect(payload.event).toBe("device.detached");
      expect(payload.account).toBe("wh_user");
      expect(payload.device.id).toBe(device);
      expect(payload.device.status).toBe("detached");
      expect(got.headers["webhook-id"]).toBe(payload.id);
      expect(receiver.attempts).toBe(3);
      const deliveries = await eventually(async () => {
        const r = await t.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${ep.id}/deliveries`, headers: t.auth });
        const page = Page(WebhookDelivery).parse(r.json());
        return page.data[0]?.status === "succeeded" ? page : undefined;
      }, "the delivery to be recorded");
      expect(deliveries.total).toBe(1);
      expect(deliveries.data[0]?.attempts).toBe(3);
      expect(deliveries.data[0]?.delivered_at).toMatch(/Z$/);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("an endpoint failing every attempt is disabled with a reason; re-sending the failed delivery delivers it", async () => {
    const receiver = await startReceiver({ failFirst: 1000 });
    try {
      const ep = strict(WebhookEndpoint).parse((await create({ url: receiver.url, events: ["device.detached"] })).json());
      await t.app.inject({ method: "POST", url: `/v3/devices/${await deviceOf(t, "dis_user")}/detach`, headers: t.auth });
      const disabled = await eventually(async () => {
        const list = (await t.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: t.auth })).json()
          .data as WebhookEndpoint[];
        return list.find((e) => e.id === ep.id && !e.enabled);
      }, "the endpoint to be disabled");
      expect(disabled.disabled_reason).toMatch(/consecutive failed/);
      const page = Page(WebhookDelivery).parse(
        (await t.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${ep.id}/deliveries`, headers: t.auth })).json(),
      );
      const failed = page.data[0];
      expect(failed?.status).toBe("failed");
      expect(failed?.attempts).toBe(3);
      expect(failed?.last_status_code).toBe(500);

      receiver.failFirst = 0;
      const retryUrl = `/v3/webhook-endpoints/${ep.id}/deliveries/${failed?.id}/retry`;
      const retried = await t.app.inject({ method: "POST", url: retryUrl, headers: t.auth });
      expect(retried.statusCode).toBe(200);
      expect(strict(WebhookDelivery).parse(retried.json()).status).toBe("pending");
      const got = await eventually(() => receiver.received[0], "the re-sent delivery");
      expect(strict(WebhookPayload).parse(new Webhook(ep.secret as string).verify(got.body, got.headers)).event).toBe("device.detached");
      await eventually(async () => {
        const r = await t.app.inject({ method: "POST", url: retryUrl, headers: t.auth });
        return r.statusCode === 409 ? r : undefined;
      }, "a re-send of a delivered delivery to answer 409");
      const list = (await t.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: t.auth })).json().data as WebhookEndpoint[];
      expect(list.find((e) => e.id === ep.id)?.enabled).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it("only subscribed endpoints get a delivery, and an event emitted in a rolled-back transaction does not exist", async () => {
    const ep = strict(WebhookEndpoint).parse((await create({ url: "https://hooks.example.com/only", events: ["user.converted"] })).json());
    const env = t.project.environments.development.id;
    await expect(
      t.services.repos.transaction(async () => {
        await t.services.events.emit(env, "user.converted", { account: "rolled_back", user: eventUser("rolled_back") });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const events = await t.services.repos.webhooks.listEvents(env);
    expect(events.some((e) => e.payload.includes("rolled_back"))).toBe(false);
    const page = (await t.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${ep.id}/deliveries`, headers: t.auth })).json();
    expect(page.total).toBe(0);
  });
});

describe.skipIf(!PG_AVAILABLE)("two workers on one PostgreSQL outbox", () => {
  it("drain 60 events with no duplicate and none missing", async () => {
    const db = await migratedDatabase("postgres");
    const receiver = await startReceiver();
    const config = testConfig({ ...db.env, ...FAST, WEBHOOK_POLL_MS: "10" });
    const a = await createServices({ ...config, WORKERS: false });
    const b = await createServices({ ...config, WORKERS: false });
    try {
      const project = await a.repos.projects.create("Two workers");
      const envId = project.environments.development.id;
      const env = (await a.repos.projects.environmentByClientId(project.environments.development.client_id))!;
      await a.webhookEndpoints.create(env, { url: receiver.url, events: ["user.converted"] });
      for (let i = 0; i < 60; i++)
        await a.repos.transaction(() => a.events.emit(envId, "user.converted", { account: `u${i}`, user: eventUser(`u${i}`) }));
      const { startWorkers } = await import("../src/jobs/index.js");
      const wa = startWorkers(a).webhooks;
      const wb = startWorkers(b).webhooks;
      await eventually(() => receiver.received.length >= 60 || undefined, "60 deliveries");
      await wa.stop();
      await wb.stop();
      const ids = receiver.received.map((r) => r.headers["webhook-id"]);
      expect(new Set(ids).size).toBe(60);
      expect(ids).toHaveLength(60);
    } finally {
      await a.close();
      await b.close();
      await receiver.close();
      await db.drop();
    }
  });
});
