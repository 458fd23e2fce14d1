// Bad input (docs/server-api.md, docs/operations.md): property-based fuzzing of every public endpoint listed in /openapi.json — so a
// new route is covered the day it is documented — with random JSON, wrong types, huge strings, deep nesting,
// invalid UTF-8, unknown fields and bodies past BODY_LIMIT. Every answer is a 2xx, or a 4xx with the error body;
// never a 5xx, never a crash. Plus slow clients: a request that never completes is cut off by the server. On both
// stores: a store's own errors (a constraint, a type PostgreSQL refuses where SQLite coerces) must not become a 5xx.
import net from "node:net";
import { ErrorBody } from "@tessera/sdk/contract";
import fc from "fast-check";
import type { InjectOptions } from "light-my-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** Small so that "past the limit" is cheap to send; the documented default is 256 KiB (docs/operations.md). */
const BODY_LIMIT = 64 * 1024;
/** Short so that the slow-client tests end quickly; the default is 30 s. */
const REQUEST_TIMEOUT_MS = 400;
/** Runs per property: enough to hit every route many times, quick on 2 cores. */
const RUNS = 100;
/** Generous per-test limit: a loaded CI machine must not turn a slow run into a failure (no timing is asserted). */
const TEST_TIMEOUT_MS = 120_000;

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
interface Route {
  method: Method;
  path: string;
}

describeStores("fuzzing every public endpoint on %s", (kind) => {
  let t: TestApp;
  let routes: Route[] = [];
  let evaluationId = "";

  beforeAll(async () => {
    t = await startTestApp(kind, {
      BODY_LIMIT: String(BODY_LIMIT),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      CONNECTION_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS * 2),
      // Fuzzing is not a flood: the limits are tested on their own (rate-limit.test.ts).
      CLIENT_RATE_LIMIT: "1000000",
      CLIENT_ID_RATE_LIMIT: "1000000",
      // No background delivery to whatever URLs the fuzzer registers.
      WORKERS: "0",
    });
    const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, unknown>> };
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const m of Object.keys(ops)) {
        const method = m.toUpperCase();
        if (["GET", "POST", "PUT", "PATCH", "DELETE"].includes(method)) routes.push({ method: method as Method, path: p });
      }
    }
    routes = routes.sort((x, y) => `${x.path} ${x.method}`.localeCompare(`${y.path} ${y.method}`));
    const ev = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "fuzz", signals: { components: fakeComponents("fuzz") } },
    });
    evaluationId = ev.json().evaluation_id;
  });
  afterAll(async () => t?.close());

  it("finds the documented endpoints to fuzz", () => {
    const paths = routes.map((r) => `${r.method} ${r.path}`);
    expect(paths).toContain("POST /v3/client/evaluate/{action}");
    expect(paths).toContain("GET /v3/evaluations/{id}");
    expect(paths).toContain("POST /v3/evaluations/{id}/consume");
    expect(paths).toContain("POST /v3/evaluate/{action}");
  });

  /** Asserts the answer contract and returns the status. */
  async function check(opts: InjectOptions): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`no answer in 10 s: ${opts.method} ${String(opts.url).slice(0, 200)} ${String(opts.payload).slice(0, 300)}`)),
        10_000,
      );
    });
    const res = await Promise.race([t.app.inject(opts), hung]).finally(() => clearTimeout(timer));
    const where = `${opts.method} ${String(opts.url).slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
    expect(res.statusCode, where).toBeLessThan(500);
    expect(res.statusCode, where).toBeGreaterThanOrEqual(200);
    if (res.statusCode >= 400) {
      const parsed = ErrorBody.safeParse(res.json());
      expect(parsed.success, where).toBe(true);
      expect(parsed.data?.error.status, where).toBe(res.statusCode);
    }
    return res.statusCode;
  }

  it("a NUL character in a path parameter or a body string is refused or ignored, never a 5xx (PostgreSQL refuses it in text)", async () => {
    const auth = { authorization: `Bearer ${t.secret}` };
    const statuses = [
      await check({ method: "GET", url: "/v3/challenges/%00", headers: auth }),
      await check({ method: "GET", url: "/v3/evaluations/ev_%00x", headers: auth }),
      await check({ method: "GET", url: "/v3/users/a%00b", headers: auth }),
      await check({ method: "POST", url: "/v3/evaluate/login", headers: auth, payload: { user: "nul\u0000user" } }),
    ];
    // On PostgreSQL each is a 400; on SQLite the id is simply not found, or the evaluation made.
    if (kind === "postgres") expect(statuses.slice(0, 3)).toEqual([400, 400, 400]);
    expect(statuses.every((s) => s < 500)).toBe(true);
  });

  // Path parameters: plausible ids, the real evaluation, and junk (encoded so the URL stays a URL).
  const param = fc.oneof(
    fc.constantFrom("login", "signup", "access", "custom_action", "ev_nope", "x", "%00", "..%2F..", "%ff%fe", "a".repeat(300)),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
    fc.constant("__EVALUATION__"),
  );
  const auth = fc.constantFrom("secret", "other", "none", "bogus");
  const query = fc.oneof(
    fc.constant(""),
    fc
      .dictionary(
        fc.constantFrom("page", "limit", "status", "user", "device", "per", "token", "challenge", "x"),
        fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String)),
      )
      .map((q) => `?${new URLSearchParams(q).toString()}`),
  );
  // A body shaped like the real requests, with any field replaced by anything: wrong types, unknown fields, nulls.
  const anyValue = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.string({ maxLength: 5000 }),
    fc.constantFrom(null, true, -1, 1e308, "", "x".repeat(20_000), [], {}),
  );
  const shapedBody = fc
    .record(
      {
        client_id: fc.oneof(fc.constant("__CLIENT__"), anyValue),
        user: anyValue,
        email: fc.oneof(fc.emailAddress(), anyValue),
        phone: anyValue,
        ip: fc.oneof(fc.ipV4(), fc.ipV6(), anyValue),
        user_agent: anyValue,
        metadata: anyValue,
        signals: fc.oneof(
          fc.record(
            {
              components: fc.oneof(fc.dictionary(fc.string({ maxLength: 70 }), fc.record({ value: anyValue })), anyValue),
              visitor_token: anyValue,
              url: anyValue,
            },
            { requiredKeys: [] },
          ),
          anyValue,
        ),
        content: anyValue,
        code: anyValue,
        channel: fc.oneof(fc.constantFrom("email", "text", "pigeon"), anyValue),
        values: fc.oneof(fc.array(fc.string(), { maxLength: 600 }), anyValue),
        conditions: anyValue,
        verdict: anyValue,
        url: anyValue,
        events: anyValue,
        unknown_field: anyValue,
      },
      { requiredKeys: [] },
    )
    .map((b) => JSON.stringify(b));
  const deep = fc.integer({ min: 100, max: 20_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`);
  const deepObject = fc.integer({ min: 100, max: 5_000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`);
  const body = fc.oneof(
    { weight: 5, arbitrary: shapedBody },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: deepObject },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const contentType = fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    undefined,
  );

  function headersFor(who: string, ct: string | undefined): Record<string, string> {
    const h: Record<string, string> = {};
    if (who === "secret") h.authorization = `Bearer ${t.secret}`;
    if (who === "other") h.authorization = `Bearer ${t.otherSecret}`;
    if (who === "bogus") h.authorization = "Bearer sk_test_nope";
    if (ct) h["content-type"] = ct;
    return h;
  }

  function urlFor(route: Route, params: string[], q: string): string {
    let i = 0;
    const p = route.path.replace(/\{[^}]+\}/g, () => {
      const v = params[i++ % params.length] ?? "x";
      return v === "__EVALUATION__" ? evaluationId : v;
    });
    return p + q;
  }

  it(
    "random requests to every endpoint answer 2xx or 4xx with the error body, never 5xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.array(param, { minLength: 1, maxLength: 3 }),
          auth,
          query,
          body,
          contentType,
          async (n, params, who, q, b, ct) => {
            const route = routes[n % routes.length]!;
            const payload = typeof b === "string" ? b.replaceAll('"__CLIENT__"', JSON.stringify(t.clientId)) : b;
            const hasBody = route.method !== "GET" && route.method !== "DELETE";
            await check({
              method: route.method,
              url: urlFor(route, params, q),
              headers: headersFor(who, hasBody && payload !== undefined ? ct : undefined),
              ...(hasBody && payload !== undefined ? { payload } : {}),
            });
          },
        ),
        { numRuns: RUNS * 4 },
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "every endpoint with a body answers a well-formed body of each wrong type with a 4xx or 2xx",
    async () => {
      const wrong = [
        null,
        0,
        "s",
        true,
        [],
        [1, 2],
        { client_id: 5 },
        { client_id: t.clientId, user: { nested: true } },
        { client_id: t.clientId, signals: "no" },
      ];
      for (const route of routes.filter((r) => r.method !== "GET" && r.method !== "DELETE")) {
        for (const w of wrong) {
          await check({
            method: route.method,
            url: urlFor(route, ["__EVALUATION__"], ""),
            headers: headersFor("secret", "application/json"),
            payload: JSON.stringify(w),
          });
        }
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a body past BODY_LIMIT answers 413 payload_too_large on every endpoint with a body",
    async () => {
      const huge = JSON.stringify({ client_id: t.clientId, user: "u", metadata: { blob: "x".repeat(BODY_LIMIT) } });
      for (const route of routes.filter((r) => r.method !== "GET" && r.method !== "DELETE")) {
        const res = await t.app.inject({
          method: route.method,
          url: urlFor(route, ["__EVALUATION__"], ""),
          headers: headersFor("secret", "application/json"),
          payload: huge,
        });
        // Auth runs first on the server API, so an unauthenticated scope may refuse before reading; ours is authenticated.
        expect(res.statusCode, `${route.method} ${route.path}`).toBe(413);
        expect(strict(ErrorBody).parse(res.json()).error).toMatchObject({ status: 413, code: "payload_too_large" });
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "invalid UTF-8 and huge strings inside an otherwise valid evaluate body are refused or stored, never 5xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 0, max: 40_000 }), async (bytes, len) => {
          const head = Buffer.from(`{"client_id":${JSON.stringify(t.clientId)},"user":"`);
          const tail = Buffer.from(`","metadata":{"k":"${"y".repeat(len)}"}}`);
          // Raw bytes between quotes: quotes and backslashes are escaped away so only the encoding is wrong.
          const raw = Buffer.from(bytes.filter((x) => x !== 0x22 && x !== 0x5c && x >= 0x20));
          await check({
            method: "POST",
            url: "/v3/client/evaluate/login",
            headers: { "content-type": "application/json" },
            payload: Buffer.concat([head, raw, tail]),
          });
        }),
        { numRuns: RUNS },
      );
    },
    TEST_TIMEOUT_MS,
  );

  describe("slow clients", () => {
    let port = 0;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: "127.0.0.1" });
      port = (t.app.server.address() as net.AddressInfo).port;
    });

    /** Opens a socket, runs `drive` on it, and resolves with what the server sent once it closed the connection. */
    function untilClosed(drive: (s: net.Socket, closed: () => boolean) => void): Promise<string> {
      return new Promise((resolve, reject) => {
        const s = net.connect(port, "127.0.0.1");
        let got = "";
        let closed = false;
        s.on("data", (d) => {
          got += d.toString();
        });
        s.on("error", () => {});
        s.on("close", () => {
          closed = true;
          resolve(got);
        });
        s.on("connect", () => drive(s, () => closed));
        // A safety net far above REQUEST_TIMEOUT_MS: the test fails rather than hangs if the server never closes.
        setTimeout(() => {
          if (!closed) {
            s.destroy();
            reject(new Error("the server kept a slow client's connection open"));
          }
        }, 20 * REQUEST_TIMEOUT_MS).unref();
      });
    }

    it("a request that stops half-way is cut off by the server", async () => {
      const got = await untilClosed((s) => {
        s.write(
          `POST /v3/client/evaluate/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"client_id":`,
        );
      });
      // Node answers 408 when the request timeout fires, or just closes an idle socket; either way it is closed.
      if (got) expect(got).toMatch(/^HTTP\/1\.1 408/);
    });

    it("a client trickling its headers byte by byte is cut off by the request timeout", async () => {
      const head = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(10_000);
      let sent = 0;
      await untilClosed((s, closed) => {
        const tick = setInterval(() => {
          // Bounded: stops when the server closes the socket or the header runs out.
          if (closed() || sent >= head.length) {
            clearInterval(tick);
            return;
          }
          s.write(head[sent++]!);
        }, REQUEST_TIMEOUT_MS / 10);
      });
      // Cut off while still trickling: the request was never complete.
      expect(sent).toBeLessThan(head.length);
    });
  });
});
