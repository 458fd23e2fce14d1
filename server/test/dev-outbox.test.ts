// Codes in development (docs/challenges.md), on both stores: without SMTP_URL a code goes to the dev outbox — a log line, the
// JSON outbox (with the code as a field) and the demo's HTML page listing every development environment's codes; a
// request without the key is told what the outbox needs. The demo's test-mode switch puts its user on a test list.
import { DevOutbox, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createCodeDelivery } from "../src/delivery/index.js";
import { challengedEvaluation, describeStores, startTestApp, type TestApp } from "./helpers.js";
import { freePort } from "./server-process.js";
import { strict } from "./strict.js";

/** A code mail to send through the delivery under test. */
const EMAIL = { channel: "email", to: "dev@example.com", code: "424242", language: "en", project: { name: "Acme" } } as const;

describe("the dev outbox's log line", () => {
  it("names the code and its recipient in development, and is absent when the log is silenced", async () => {
    const lines: string[] = [];
    const delivery = createCodeDelivery(loadConfig({ NODE_ENV: "development", LOG_LEVEL: "info" }), (l) => lines.push(l));
    const result = await delivery.send(EMAIL);
    expect(result).toMatchObject({ status: "sent", outbox: { code: "424242", recipient: "dev@example.com" } });
    expect(lines).toEqual(["[dev outbox] code 424242 for dev@example.com (email; see /demo/outbox)"]);
    const quiet: string[] = [];
    await createCodeDelivery(loadConfig({ NODE_ENV: "development", LOG_LEVEL: "silent" }), (l) => quiet.push(l)).send({
      channel: "text",
      to: "+33612345678",
      code: "111111",
      language: "en",
      project: { name: "Acme" },
    });
    expect(quiet).toEqual([]);
  });

  it("a production server has no outbox: without SMTP_URL the send fails and nothing is logged", async () => {
    const lines: string[] = [];
    const delivery = createCodeDelivery(loadConfig({ NODE_ENV: "production" }), (l) => lines.push(l));
    const result = await delivery.send(EMAIL);
    expect(result.status).toBe("failed");
    expect(lines).toEqual([]);
  });
});

describeStores("dev outbox and the demo's test mode on %s", (kind) => {
  let t: TestApp;
  let site: FastifyInstance;
  let siteUrl: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { CHALLENGE_IP_RATE_LIMIT: "100000" });
    // The demo is a second app on the same services, listening, since its backend calls the API over HTTP.
    const dev = t.project.environments.development;
    const port = await freePort();
    siteUrl = `http://127.0.0.1:${port}`;
    site = await buildApp(t.services, { logger: false, demo: { clientId: dev.client_id, secret: dev.secret, baseUrl: siteUrl } });
    await site.listen({ port, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await site?.close();
    await t?.close();
  });

  it("without a key, GET /v3/dev/outbox says it needs the environment's secret key and where else the codes are", async () => {
    for (const headers of [{}, { authorization: "Bearer sk_test_wrong" }]) {
      const r = await t.app.inject({ method: "GET", url: "/v3/dev/outbox", headers });
      expect(r.statusCode).toBe(401);
      const { message } = strict(ErrorBody).parse(r.json()).error;
      expect(message).toMatch(/secret key/);
      expect(message).toContain("Authorization: Bearer sk_test_");
      expect(message).toContain("/demo/outbox");
    }
  });

  it("the demo's test mode challenges its user; the code shows in the JSON outbox and on the HTML page", async () => {
    const on = await fetch(`${siteUrl}/demo/api/test-mode`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: "demo-user", verdict: "challenge" }),
    });
    expect(on.status).toBe(200);
    expect((await on.json()).message).toContain("challenge (test_challenge list)");
    const { id, headers } = await challengedEvaluation(t, "login", "demo-user", { email: "demo@example.com" });
    const sent = await t.app.inject({ method: "POST", url: `/v3/challenges/${id}/send`, headers, payload: { channel: "email" } });
    expect(sent.statusCode, sent.body).toBe(200);

    const outbox = strict(DevOutbox).parse((await t.app.inject({ method: "GET", url: "/v3/dev/outbox", headers: t.auth })).json());
    const message = outbox.data[0]!;
    expect(message).toMatchObject({ recipient: "demo@example.com", channel: "email", challenge_id: id });
    expect(message.code).toMatch(/^\d{6}$/);
    expect(message.body).toContain(message.code);
    // The code is the one that verifies.
    const verified = await t.app.inject({
      method: "POST",
      url: `/v3/challenges/${id}/verify`,
      headers,
      payload: { code: message.code },
    });
    expect(verified.json().challenge.status).toBe("verified");

    const page = await fetch(`${siteUrl}/demo/outbox`);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain(`<td class="code">${message.code}</td>`);
    expect(html).toContain("demo@example.com");
    expect(html).toContain("Test project");

    const off = await fetch(`${siteUrl}/demo/api/test-mode`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: "demo-user", verdict: "none" }),
    });
    expect((await off.json()).message).toContain("Test mode off");
    const lists = await t.app.inject({ method: "GET", url: "/v3/lists/test_challenge", headers: t.auth });
    expect(lists.json().total).toBe(0);
  });

  it("the outbox page escapes what it shows and lists no production environment's codes", async () => {
    const prod = t.project.environments.production;
    const challengeId = "ch_prodtest";
    await t.services.repos.challenges.addToOutbox({
      id: "msg_prod",
      environment_id: prod.id,
      challenge_id: challengeId,
      channel: "email",
      recipient: "prod@example.com",
      subject: "s",
      body: "b",
      code: "999999",
      created_at: Date.now(),
    });
    await t.services.repos.challenges.addToOutbox({
      id: "msg_xss",
      environment_id: t.project.environments.development.id,
      challenge_id: challengeId,
      channel: "email",
      recipient: "x@example.com",
      subject: "<script>alert(1)</script>",
      body: "b",
      code: "123123",
      created_at: Date.now(),
    });
    const html = await (await fetch(`${siteUrl}/demo/outbox`)).text();
    expect(html).not.toContain("prod@example.com");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
  });
});
