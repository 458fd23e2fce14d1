// Scale-out (docs/storage.md, docs/operations.md): two server processes with no shared memory on one PostgreSQL database, as behind a
// load balancer. What one instance wrote the other reads; consume races across both have one winner; client rate
// limits, velocity and device counts agree. (The webhook outbox drained by both is covered by the webhooks tests.)
import { ClientEvaluateResponse, ErrorBody, Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, fakeComponents, migratedDatabase, PG_AVAILABLE, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, type ServerProcess, startServer } from "./server-process.js";
import { strict } from "./strict.js";

/** Requests per minute per IP on both instances: small, so the shared count is visible in a few requests. */
const IP_LIMIT = 20;

describe.skipIf(!PG_AVAILABLE)("two instances on one PostgreSQL database", () => {
  let db: TestDatabase;
  let project: CliProject;
  let a: ServerProcess;
  let b: ServerProcess;
  let ipSeq = 0;
  /** A new client address per call (the servers trust X-Forwarded-For), so the IP limit only bites where meant to. */
  const nextIp = () => `10.${(++ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;

  beforeAll(async () => {
    db = await migratedDatabase("postgres");
    project = await createProjectCli(db.env);
    const env = { ...db.env, TRUST_PROXY: "1", CLIENT_RATE_LIMIT: String(IP_LIMIT), DATABASE_POOL_SIZE: "8" };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const auth = () => ({ authorization: `Bearer ${project.secret}` });

  async function evaluate(on: ServerProcess, body: Record<string, unknown> = {}, ip = nextIp()): Promise<Response> {
    return fetch(`${on.url}/v3/client/evaluate/login`, {
      method: "POST",
      // A real browser's user agent: a bare HTTP client reads as a bot, and a bot's device never joins the account.
      headers: { "content-type": "application/json", "x-forwarded-for": ip, "user-agent": BROWSER_UA },
      body: JSON.stringify({ client_id: project.clientId, ...body }),
    });
  }

  it("an evaluation made on one instance is read and consumed on the other", async () => {
    const r = await evaluate(a, { user: "acct_scale", signals: { components: fakeComponents("scale"), visitor_token: "tok-scale-1234" } });
    expect(r.status).toBe(200);
    const { evaluation_id } = strict(ClientEvaluateResponse).parse(await r.json());

    const got = await fetch(`${b.url}/v3/evaluations/${evaluation_id}`, { headers: auth() });
    expect(got.status).toBe(200);
    const ev = strict(Evaluation).parse(await got.json());
    expect(ev.user?.id).toBe("acct_scale");
    expect(ev.consumed).toBe(false);

    const consumed = await fetch(`${b.url}/v3/evaluations/${evaluation_id}/consume`, { method: "POST", headers: auth() });
    expect(consumed.status).toBe(200);
    const back = strict(Evaluation).parse(await (await fetch(`${a.url}/v3/evaluations/${evaluation_id}`, { headers: auth() })).json());
    expect(back.consumed).toBe(true);
    expect(back.consumed_at).toBe(strict(Evaluation).parse(await consumed.json()).consumed_at);
  });

  it("the same browser on either instance is the same fingerprint and device", async () => {
    const body = { user: "acct_same", signals: { components: fakeComponents("same-browser"), visitor_token: "tok-same-browser" } };
    const ids: string[] = [];
    for (const on of [a, b, a]) ids.push(strict(ClientEvaluateResponse).parse(await (await evaluate(on, body)).json()).evaluation_id);
    const evs = await Promise.all(
      ids.map(async (id) => strict(Evaluation).parse(await (await fetch(`${b.url}/v3/evaluations/${id}`, { headers: auth() })).json())),
    );
    expect(new Set(evs.map((e) => e.fingerprint?.id)).size).toBe(1);
    expect(new Set(evs.map((e) => e.device)).size).toBe(1);
    expect(new Set(evs.map((e) => e.user?.service_id)).size).toBe(1);
  });

  it("100 concurrent consumes spread over both instances give exactly one 200", async () => {
    const { evaluation_id } = strict(ClientEvaluateResponse).parse(await (await evaluate(b)).json());
    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const r = await fetch(`${(i % 2 ? a : b).url}/v3/evaluations/${evaluation_id}/consume`, { method: "POST", headers: auth() });
        return { status: r.status, body: (await r.json()) as unknown };
      }),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(99);
    for (const r of results) if (r.status === 409) expect(strict(ErrorBody).parse(r.body).error.code).toBe("already_consumed");
  });

  it("consume races on many evaluations at once still give one winner each", async () => {
    const ids = await Promise.all(
      Array.from(
        { length: 20 },
        async (_, i) => strict(ClientEvaluateResponse).parse(await (await evaluate(i % 2 ? a : b)).json()).evaluation_id,
      ),
    );
    const wins = new Map<string, number>(ids.map((id) => [id, 0]));
    await Promise.all(
      ids.flatMap((id) =>
        Array.from({ length: 10 }, async (_, i) => {
          const r = await fetch(`${(i % 2 ? a : b).url}/v3/evaluations/${id}/consume`, { method: "POST", headers: auth() });
          await r.arrayBuffer();
          if (r.status === 200) wins.set(id, (wins.get(id) ?? 0) + 1);
          else expect(r.status).toBe(409);
        }),
      ),
    );
    expect([...wins.values()]).toEqual(ids.map(() => 1));
  });

  it("velocity and device counts see the evaluations made on both instances", async () => {
    const ip = "198.51.100.201";
    const ids: string[] = [];
    // One user, three browsers, six evaluations from one IP, alternating instances.
    for (let i = 0; i < 6; i++) {
      const seed = `velocity-${i % 3}`;
      const r = await evaluate(
        i % 2 ? a : b,
        { user: "acct_velocity", signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}` } },
        ip,
      );
      const id = strict(ClientEvaluateResponse).parse(await r.json()).evaluation_id;
      ids.push(id);
      // The user is signed in on each browser: the backend consumes on the other instance, so the device counts there.
      const consumed = await fetch(`${(i % 2 ? b : a).url}/v3/evaluations/${id}/consume`, { method: "POST", headers: auth() });
      expect(consumed.status).toBe(200);
    }
    const last = strict(Evaluation).parse(await (await fetch(`${a.url}/v3/evaluations/${ids[5]}`, { headers: auth() })).json());
    const checks = last.checks as Record<string, unknown>;
    // Counted from the shared store, not per process: each instance made only three of these.
    expect(checks.event_count).toBe(6);
    expect(checks.ip_event_count).toBe(6);
    // Device counts come from the same shared rows: both instances list the same devices for the user.
    const lists = await Promise.all(
      [a, b].map(async (on) => {
        const r = await fetch(`${on.url}/v3/user/acct_velocity/devices`, { headers: auth() });
        expect(r.status).toBe(200);
        return ((await r.json()) as Array<{ id: string }>).map((d) => d.id).sort();
      }),
    );
    expect(lists[0]!.length).toBeGreaterThan(0);
    expect(lists[1]).toEqual(lists[0]);
    expect(checks.device_count).toBe(lists[0]!.length);
  });

  it("the per-IP client limit is counted across instances: its allowance is shared, and both refuse past it", async () => {
    const ip = "192.0.2.77";
    const codes: number[] = [];
    for (let i = 0; i < IP_LIMIT; i++) {
      const r = await evaluate(i % 2 ? a : b, {}, ip);
      await r.arrayBuffer();
      codes.push(r.status);
    }
    // Per instance, each saw only half the limit; only a shared count refuses the next one.
    expect(codes).toEqual(Array(IP_LIMIT).fill(200));
    for (const on of [a, b]) {
      const r = await evaluate(on, {}, ip);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(strict(ErrorBody).parse(await r.json()).error.code).toBe("rate_limited");
    }
    // Another address is unaffected on either instance.
    expect((await evaluate(a)).status).toBe(200);
  });
});
