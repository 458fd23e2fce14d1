// Webhook delivery leases and failure logs (docs/webhooks.md, docs/operations.md): a lease lasts the worker's own POST timeout plus a small
// margin (a killed worker's deliveries waited 40 s with a 10-s timeout), a restarted embedded-store server takes over
// what its killed predecessor held at once, and every failed attempt is logged — on both stores.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { createServices, type Services } from "../src/services.js";
import { LEASE_MARGIN_MS, WebhookWorker } from "../src/webhooks/worker.js";
import { describeStores, eventUser, migratedDatabase, type TestDatabase, testConfig } from "./helpers.js";
import { eventually, startReceiver } from "./webhook-receiver.js";

const TIMEOUT_MS = 2_000;

interface Logged {
  level: "warn" | "error";
  obj: Record<string, unknown>;
  msg?: string;
}
function captureLog() {
  const lines: Logged[] = [];
  return {
    lines,
    warn: (obj: unknown, msg?: string) => void lines.push({ level: "warn", obj: obj as Record<string, unknown>, msg }),
    error: (obj: unknown, msg?: string) => void lines.push({ level: "error", obj: obj as Record<string, unknown>, msg }),
  };
}

describeStores("webhook leases and logs on %s", (kind) => {
  let db: TestDatabase | undefined;
  let services: Services | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await services?.close();
    await db?.drop();
  });

  async function setUp(url: string) {
    db = await migratedDatabase(kind);
    const config = testConfig({ ...db.env, WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_RETRY_BASE_MS: "60000" });
    services = await createServices({ ...config, WORKERS: false });
    const s = services;
    const project = await s.repos.projects.create("Leases");
    const env = (await s.repos.projects.environmentByClientId(project.environments.development.client_id))!;
    await s.webhookEndpoints.create(env, { url, events: ["user.converted"] });
    await s.repos.transaction(() => s.events.emit(env.id, "user.converted", { account: "u1", user: eventUser("u1") }));
    return { services: s, config };
  }

  const delivery = (s: Services) => s.repos.db.selectFrom("webhook_deliveries").selectAll().executeTakeFirstOrThrow();

  it("a claimed delivery is leased for the POST timeout plus the margin, not longer", async () => {
    // A receiver that never answers: the worker holds its lease for the whole attempt.
    const hanging = http.createServer(() => {});
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    cleanups.push(
      () =>
        new Promise((r) => {
          hanging.closeAllConnections();
          hanging.close(r);
        }),
    );
    const { services: s, config } = await setUp(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`);
    const worker = new WebhookWorker(s.repos, config);
    const draining = worker.drain();
    const leased = await eventually(async () => {
      const d = await delivery(s);
      return d.lease_owner ? d : undefined;
    }, "the claim");
    expect(Number(leased.lease_until) - Number(leased.updated_at)).toBe(TIMEOUT_MS + LEASE_MARGIN_MS);
    await draining;
    expect((await delivery(s)).last_error).toMatch(/timeout/);
  });

  it("a lease left by a stopped worker is taken over at once only where no other process can hold it", async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const { services: s, config } = await setUp(receiver.url);
    // What a worker killed mid-send leaves: a lease in the future, owned by nobody alive.
    const at = Date.now();
    expect(await s.repos.webhooks.claimDue("wkr_killed", at, at + 3_600_000, 20)).toHaveLength(1);

    // A live worker never takes another's lease before it expires…
    expect(await new WebhookWorker(s.repos, config).drain()).toBe(0);
    // …except the embedded store's, at start: its process is the only one, so the lease's owner is gone.
    const alone = new WebhookWorker(s.repos, config, undefined, { takeOverLeases: s.store.dialect === "sqlite" });
    expect(await alone.drain()).toBe(kind === "sqlite" ? 1 : 0);
    expect(receiver.received).toHaveLength(kind === "sqlite" ? 1 : 0);
  });

  it("every failed attempt is logged with the delivery and endpoint, never the URL", async () => {
    const receiver = await startReceiver({ failFirst: 1 });
    cleanups.push(() => receiver.close());
    const { services: s, config } = await setUp(`${receiver.url}?token=customer-secret`);
    const log = captureLog();
    await new WebhookWorker(s.repos, { ...config, WEBHOOK_MAX_ATTEMPTS: 2, WEBHOOK_RETRY_BASE_MS: 1 }, log).drain();
    const failed = log.lines.filter((l) => l.msg === "webhook delivery attempt failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.obj).toMatchObject({ event: "user.converted", attempts: 1, error: "HTTP 500" });
    expect(failed[0]?.obj.delivery).toMatch(/^whd_/);
    expect(JSON.stringify(log.lines)).not.toContain("customer-secret");
  });
});
