// PostgreSQL resilience (docs/operations.md): a dropped connection never crashes the server. Backends terminated under load
// (a restart, a failover, an idle-connection killer) and a network that goes silent and comes back: the process
// stays up, /readyz says 503 while the store is gone, and requests succeed again once it is back.
import { once } from "node:events";
import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_URL, BROWSER_UA, fakeComponents, migratedDatabase, PG_AVAILABLE, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, type ServerProcess, startServer } from "./server-process.js";

/** The load comes from one address: no rate limit may answer for the store. */
const UNLIMITED = { CLIENT_RATE_LIMIT: "1000000", CLIENT_ID_RATE_LIMIT: "1000000" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP proxy in front of PostgreSQL that can go silent (a black-holed network): it stops passing bytes, both ways. */
class SilentableProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private silent = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.silent) {
        client.pause();
        upstream.pause();
      }
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Nothing passes any more; connections stay open, as when packets are silently dropped. */
  goSilent(): void {
    this.silent = true;
    for (const [a, b] of this.pairs) {
      a.pause();
      b.pause();
    }
  }

  /** The network is back: what was held is delivered, like TCP retransmission after an outage. */
  comeBack(): void {
    this.silent = false;
    for (const [a, b] of this.pairs) {
      a.resume();
      b.resume();
    }
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise((r) => this.server.close(r));
  }
}

describe.skipIf(!PG_AVAILABLE)("a server on PostgreSQL when connections drop", () => {
  let db: TestDatabase;
  let project: CliProject;

  beforeAll(async () => {
    db = await migratedDatabase("postgres");
    project = await createProjectCli(db.env);
  });
  afterAll(async () => {
    await db?.drop();
  });

  let seq = 0;
  async function evaluate(server: ServerProcess): Promise<number> {
    const n = ++seq;
    try {
      const r = await fetch(`${server.url}/v3/client/evaluate/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
        body: JSON.stringify({
          client_id: project.clientId,
          user: `user_${n % 50}`,
          signals: { components: fakeComponents(`pg-${n % 40}`), visitor_token: `vt-pg-${n % 40}-xxxxxxxxx` },
        }),
        signal: AbortSignal.timeout(30_000),
      });
      await r.arrayBuffer();
      return r.status;
    } catch {
      return 0;
    }
  }

  /** Requests in a loop from `workers` clients until `stop()`; answers the statuses seen. */
  function load(server: ServerProcess, workers: number) {
    let running = true;
    const statuses: number[] = [];
    const done = Promise.all(
      Array.from({ length: workers }, async () => {
        // Bounded: a run never outlives the test even if stop() is never called.
        for (let i = 0; i < 5000 && running; i++) statuses.push(await evaluate(server));
      }),
    );
    return {
      statuses,
      stop: async () => {
        running = false;
        await done;
      },
    };
  }

  /** The first success within `ms`, retrying: requests recover once the store is back. */
  async function recovers(server: ServerProcess, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if ((await evaluate(server)) === 200) return true;
      await sleep(200);
    }
    return false;
  }

  async function terminateBackends(): Promise<number> {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      const name = new URL(db.env.DATABASE_URL as string).pathname.slice(1);
      const r = await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [
        name,
      ]);
      return r.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  it("backends terminated under load: the process stays up and requests recover", async () => {
    const server = await startServer({ ...db.env, ...UNLIMITED, DATABASE_POOL_SIZE: "8" });
    try {
      const traffic = load(server, 8);
      let terminated = 0;
      // Several rounds, each while requests hold connections mid-query and mid-transaction.
      for (let round = 0; round < 6; round++) {
        await sleep(400);
        terminated += await terminateBackends();
      }
      await sleep(400);
      await traffic.stop();
      expect(terminated).toBeGreaterThan(0);
      expect(traffic.statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
      // A request that lost its connection is told to retry (503), never left hanging or answered a bare 500.
      expect(server.stderr()).not.toMatch(/Unhandled 'error' event/);
      expect(server.child.exitCode).toBeNull();
      expect(traffic.statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
      expect(await recovers(server, 15_000)).toBe(true);
    } finally {
      await server.kill();
    }
  });

  it("a network that goes silent and comes back: 503 from /readyz within 2 s meanwhile, then requests recover", async () => {
    const target = new URL(db.env.DATABASE_URL as string);
    const proxy = new SilentableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    const viaProxy = new URL(target);
    viaProxy.port = String(proxy.port);
    const server = await startServer({
      ...UNLIMITED,
      DATABASE_URL: viaProxy.toString(),
      DATABASE_POOL_SIZE: "4",
      // Short, so that the outage outlasts the timeouts within a test's time.
      DATABASE_STATEMENT_TIMEOUT_MS: "2000",
      DATABASE_CONNECT_TIMEOUT_MS: "2000",
    });
    try {
      const traffic = load(server, 4);
      await sleep(500);
      proxy.goSilent();
      await sleep(300);
      const t0 = Date.now();
      const ready = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(20_000) });
      const readyMs = Date.now() - t0;
      expect(ready.status).toBe(503);
      // docs/operations.md: within 2 s (the probe gives up after 1 s).
      expect(readyMs).toBeLessThan(2000);
      // Long enough for every request stuck on the silent network to hit its deadline.
      await sleep(5000);
      proxy.comeBack();
      await sleep(500);
      await traffic.stop();
      expect(server.stderr()).not.toMatch(/Unhandled 'error' event/);
      expect(server.child.exitCode).toBeNull();
      expect(traffic.statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
      expect(await recovers(server, 15_000)).toBe(true);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.kill();
      await proxy.close();
    }
  });
});
