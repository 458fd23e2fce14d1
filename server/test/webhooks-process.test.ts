// Webhook delivery across a SIGKILL and restart of the real server, a child process (the vitest project "process",
// vite.config.ts); the endpoints API and delivery in process are in webhooks.test.ts.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { DeviceDetachedEvent } from "@tessera/sdk/contract";
import { Webhook } from "standardwebhooks";
import { afterAll, expect, it } from "vitest";
import { BROWSER_UA, describeStores, fakeComponents, migratedDatabase, type StoreKind } from "./helpers.js";
import { strict } from "./strict.js";
import { eventually, freePort, startReceiver } from "./webhook-receiver.js";

const FAST = { WEBHOOK_RETRY_BASE_MS: "30", WEBHOOK_POLL_MS: "20" };
const ROOT = path.resolve(import.meta.dirname, "../..");

const run = promisify(execFile);

describeStores("webhook delivery across a SIGKILL on %s", (kind: StoreKind) => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  it("an event committed before the kill is delivered after the restart", async () => {
    const db = await migratedDatabase(kind);
    const port = await freePort();
    const hookPort = await freePort();
    const env = {
      ...process.env,
      ...db.env,
      ...FAST,
      // Enough attempts that the event is still pending when the receiver comes up.
      WEBHOOK_MAX_ATTEMPTS: "50",
      // Short, flat-ish retries: a slow machine must not push the next attempt far past the restart.
      WEBHOOK_RETRY_BASE_MS: "10",
      NODE_ENV: "development",
      PORT: String(port),
      HOST: "127.0.0.1",
      BOOTSTRAP_PROJECT: "0",
      LOG_LEVEL: "warn",
    };
    const cli = path.join(ROOT, "bin/tessera.mjs");
    const { stdout } = await run(process.execPath, [cli, "projects", "create", "--name", "x", "--json"], { env, cwd: ROOT });
    const project = JSON.parse(stdout.trim().split("\n").pop() as string);
    const auth = { authorization: `Bearer ${project.environments.development.secret}`, "content-type": "application/json" };
    const base = `http://127.0.0.1:${port}`;
    const start = async () => {
      const p = spawn(process.execPath, [cli, "serve"], { env, cwd: ROOT, stdio: "ignore" });
      await eventually(
        async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok || undefined,
        "the server to listen",
        60_000,
      );
      return p;
    };
    let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
    try {
      child = await start();
      const ep = await (
        await fetch(`${base}/v3/webhook-endpoints`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ url: `http://127.0.0.1:${hookPort}/hook`, events: ["device.detached"] }),
        })
      ).json();
      const evaluated = await (
        await fetch(`${base}/v3/client/evaluate/login`, {
          method: "POST",
          // A browser's user agent: a bot's device (node's own UA) is denied and never joins the account.
          headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
          body: JSON.stringify({
            client_id: project.environments.development.client_id,
            user: "killed",
            signals: { components: fakeComponents("kill") },
          }),
        })
      ).json();
      const ev = await (await fetch(`${base}/v3/evaluations/${evaluated.evaluation_id}`, { headers: auth })).json();
      const detached = await fetch(`${base}/v3/devices/${ev.device}/detach`, {
        method: "POST",
        headers: { authorization: auth.authorization },
      });
      expect(detached.status).toBe(200);
      // The receiver is down: the worker can only fail. Kill the server without warning.
      child.kill("SIGKILL");
      await new Promise((r) => child?.once("exit", r));

      receiver = await startReceiver({ port: hookPort });
      child = await start();
      const got = await eventually(() => receiver?.received[0], "the delivery after the restart", 60_000);
      const payload = strict(DeviceDetachedEvent).parse(new Webhook(ep.secret).verify(got.body, got.headers));
      expect(payload.event).toBe("device.detached");
      expect(payload.account).toBe("killed");
      expect(payload.device.id).toBe(ev.device);
      const deliveries = await eventually(async () => {
        const page = await (await fetch(`${base}/v3/webhook-endpoints/${ep.id}/deliveries`, { headers: auth })).json();
        return page.data[0]?.status === "succeeded" ? page : undefined;
      }, "the delivery to be recorded as succeeded");
      expect(deliveries.total).toBe(1);
    } finally {
      child?.kill("SIGKILL");
      if (child && child.exitCode === null) await new Promise((r) => child?.once("exit", r));
      child = undefined;
      await receiver?.close();
      await db.drop();
    }
  }, 180_000);
});
