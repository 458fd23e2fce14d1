// Webhook delivery is isolated per endpoint (docs/webhooks.md#delivery): one customer's receiver that accepts the
// connection and never answers holds at most PER_ENDPOINT of the worker's sends, for its own timeout, while another
// customer's deliveries keep arriving. Before, the worker awaited each batch of 20 as a whole: a hanging endpoint
// delayed every other endpoint's deliveries until its timeout (0.1 s became 14–22 s). Both stores, the real app with
// its background worker.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as worker from "../src/webhooks/worker.js";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { eventually, type Receiver, startReceiver } from "./webhook-receiver.js";

/** Long enough that no hanging POST times out during a test: what happens meanwhile is what is measured. */
const TIMEOUT_MS = 60_000;
const EVENTS = 10;
/** Deliveries in flight at once per endpoint (worker.ts). */
const PER_ENDPOINT = worker.PER_ENDPOINT;

/** A receiver that takes each request and never answers; counts requests and the most open at once. */
async function hangingReceiver() {
  const open = new Set<http.ServerResponse>();
  const sockets = new Set<Socket>();
  const state = { requests: 0, mostOpen: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    open.add(res);
    state.mostOpen = Math.max(state.mostOpen, open.size);
    req.resume();
    res.on("close", () => open.delete(res));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    /** Starts answering: every request held, and every later one, gets a 204. */
    recover() {
      for (const res of open) res.writeHead(204).end();
      server.removeAllListeners("request");
      server.on("request", (req, res) => {
        state.requests++;
        req.resume();
        res.writeHead(204).end();
      });
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describeStores("webhook delivery isolated per endpoint on %s", (kind) => {
  let t: TestApp;
  let hanging: Awaited<ReturnType<typeof hangingReceiver>>;
  let fast: Receiver;
  let hangingEndpoint: string;
  let fastEndpoint: string;
  const other = () => ({ authorization: `Bearer ${t.otherSecret}` });

  beforeAll(async () => {
    t = await startTestApp(kind, { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_POLL_MS: "20" });
    hanging = await hangingReceiver();
    fast = await startReceiver();
    const create = async (url: string, headers: Record<string, string>) => {
      const r = await t.app.inject({ method: "POST", url: "/v3/webhook-endpoints", headers, payload: { url, events: ["user.converted"] } });
      expect(r.statusCode, r.body).toBe(201);
      return (r.json() as { id: string }).id;
    };
    // Two customers: the first's receiver hangs, the other's answers at once.
    hangingEndpoint = await create(hanging.url, t.auth);
    fastEndpoint = await create(fast.url, other());
  });
  afterAll(async () => {
    await t?.close();
    await hanging?.close();
    await fast?.close();
  });

  const test = (endpoint: string, headers: Record<string, string>) =>
    t.app.inject({ method: "POST", url: `/v3/webhook-endpoints/${endpoint}/test`, headers, payload: {} });
  const deliveries = async (endpoint: string, headers: Record<string, string>) =>
    (
      (await t.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${endpoint}/deliveries?limit=100`, headers })).json() as {
        data: Array<{ status: string; attempts: number; last_error?: string }>;
      }
    ).data;

  it("a hanging receiver holds at most its own lane while another customer's deliveries all arrive", async () => {
    // The hanging customer's events first: they are the oldest due deliveries, the head of every claim.
    for (let i = 0; i < EVENTS; i++) expect((await test(hangingEndpoint, t.auth)).statusCode).toBe(200);
    await eventually(() => (hanging.state.requests >= 1 ? true : undefined), "the hanging receiver to be reached");
    for (let i = 0; i < EVENTS; i++) expect((await test(fastEndpoint, other())).statusCode).toBe(200);

    // Every one of the other customer's deliveries arrives…
    await eventually(() => (fast.received.length >= EVENTS ? true : undefined), "the fast receiver's deliveries");
    expect(fast.received).toHaveLength(EVENTS);
    const settled = await deliveries(fastEndpoint, other());
    await eventually(
      async () => ((await deliveries(fastEndpoint, other())).every((d) => d.status === "succeeded") ? true : undefined),
      "the fast deliveries to be recorded",
    );
    expect(settled).toHaveLength(EVENTS);
    // …while the hanging receiver's timeout has not fired: none of its deliveries has even one recorded attempt.
    const held = await deliveries(hangingEndpoint, t.auth);
    expect(held).toHaveLength(EVENTS);
    expect(held.every((d) => d.status === "pending" && d.attempts === 0 && !d.last_error)).toBe(true);
    // The hanging receiver got only its lane's worth of requests, not the whole queue.
    expect(hanging.state.requests).toBe(PER_ENDPOINT);
    expect(hanging.state.mostOpen).toBe(PER_ENDPOINT);
  });

  it("the honest look-alike: once the receiver answers, every one of its deliveries arrives, once each", async () => {
    hanging.recover();
    await eventually(
      async () => ((await deliveries(hangingEndpoint, t.auth)).every((d) => d.status === "succeeded") ? true : undefined),
      "the held deliveries to succeed",
    );
    expect(hanging.state.requests).toBe(EVENTS);
  });
});
