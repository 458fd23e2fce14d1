// CONFIG_FILE (docs/policies.md), on both stores: webhook endpoints load with the secret the file gives (they were silently
// dropped) and receive events signed with it; a restart updates them rather than adding copies; test lists stay out
// of production; a mistake in the file stops the start with a message naming the file and the entry.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type WebhookEndpoint, WebhookPayload } from "@tessera/sdk/contract";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { createServices } from "../src/services.js";
import { describeStores, migratedDatabase, type TestDatabase, testConfig } from "./helpers.js";
import { strict } from "./strict.js";
import { eventually, type Receiver, startReceiver } from "./webhook-receiver.js";

const SECRET = `whsec_${crypto.randomBytes(24).toString("base64")}`;

describeStores("CONFIG_FILE on %s", (kind) => {
  let db: TestDatabase;
  let receiver: Receiver;
  let dir: string;
  beforeAll(async () => {
    db = await migratedDatabase(kind);
    receiver = await startReceiver();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-config-"));
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Starts an app on the store with this config file (the store's projects exist before, as on a real restart). */
  async function start(config: unknown, name: string) {
    const file = path.join(dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(config));
    const services = await createServices(testConfig({ ...db.env, CONFIG_FILE: file, WEBHOOK_POLL_MS: "20" }));
    try {
      const app = await buildApp(services, { logger: false });
      return {
        app,
        services,
        close: async () => {
          await app.close();
          await services.close();
        },
      };
    } catch (e) {
      await services.close();
      throw e;
    }
  }

  it("loads webhook endpoints with their secret, delivers signed events to them, and updates them on restart", async () => {
    const setup = await createServices(testConfig({ ...db.env, WORKERS: "0" }));
    const project = await setup.repos.projects.create("Config project");
    await setup.close();
    const dev = { authorization: `Bearer ${project.environments.development.secret}` };
    const prod = { authorization: `Bearer ${project.environments.production.secret}` };
    const config = {
      webhook_endpoints: [
        { key: "crm", environment: "development", url: receiver.url, events: ["challenge.overridden"], secret: SECRET, description: "CRM" },
      ],
      lists: { test_challenge: ["e2e-user"], vip: ["founder"] },
    };
    const first = await start(config, "first");
    try {
      const listed = (await first.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: dev })).json()
        .data as WebhookEndpoint[];
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ url: receiver.url, events: ["challenge.overridden"], description: "CRM", enabled: true });
      expect(listed[0]).not.toHaveProperty("secret");
      // The production environment was not named: it has no endpoint, and no test list either.
      expect((await first.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: prod })).json().data).toEqual([]);
      const lists = async (list: string, headers: Record<string, string>) =>
        (await first.app.inject({ method: "GET", url: `/v3/lists/${list}`, headers })).json().total as number;
      expect([await lists("test_challenge", dev), await lists("test_challenge", prod), await lists("vip", prod)]).toEqual([1, 0, 1]);

      // An event reaches the endpoint, signed with the secret from the file.
      const ev = await first.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        payload: {
          client_id: project.environments.development.client_id,
          user: "e2e-user",
          email: "e2e@example.com",
          signals: { components: {} },
        },
      });
      const challenge = new URL(ev.json().redirect).searchParams.get("challenge");
      expect((await first.app.inject({ method: "POST", url: `/v3/challenges/${challenge}/override`, headers: dev })).statusCode).toBe(200);
      const got = await eventually(() => receiver.received[0], "the overridden event");
      const payload = strict(WebhookPayload).parse(new Webhook(SECRET).verify(got.body, got.headers));
      expect(payload).toMatchObject({ event: "challenge.overridden", account: "e2e-user" });
    } finally {
      await first.close();
    }

    // Restarted with the endpoint changed: the same endpoint, updated.
    const second = await start(
      { webhook_endpoints: [{ ...config.webhook_endpoints[0], events: ["challenge.completed", "device.detached"] }] },
      "second",
    );
    try {
      const listed = (await second.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: dev })).json()
        .data as WebhookEndpoint[];
      expect(listed.map((e) => e.events)).toEqual([["challenge.completed", "device.detached"]]);
    } finally {
      await second.close();
    }
  });

  it("a mistake stops the start naming the file and the entry: an unknown key, a bad secret, a refused URL", async () => {
    const endpoint = { key: "crm", url: receiver.url, events: ["challenge.completed"], secret: SECRET };
    await expect(start({ webhooks: [endpoint] }, "typo")).rejects.toThrow(/CONFIG_FILE .*typo\.json: .*webhooks/);
    await expect(start({ webhook_endpoints: [{ ...endpoint, secret: "hunter2" }] }, "secret")).rejects.toThrow(
      /webhook_endpoints\.0\.secret: secret must be whsec_/,
    );
    // http is for localhost in development only: the production environment refuses it, naming the endpoint.
    await expect(start({ webhook_endpoints: [{ ...endpoint, url: "http://hooks.example.com/x" }] }, "url")).rejects.toThrow(
      /webhook endpoint "crm" \((development|production)\): url must use https/,
    );
  });
});
