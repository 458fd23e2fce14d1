// The backend client against a tiny local node:http server: paths, auth, parsing, typed errors, retries.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError, ArgumentError, Client, NetworkError, TimeoutError, userToken } from "./index.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
}

const evaluation = (over: Record<string, unknown> = {}) => ({
  id: "ev_1",
  action: "login",
  verdict: "allow",
  reasons: [],
  user: { service_id: "u_1", id: "acct_42" },
  createdAt: "2026-11-22T19:43:00.000Z",
  updatedAt: "2026-11-22T19:43:00.000Z",
  ...over,
});

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let handlers: Handler[] = [];

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, body });
      const handler = handlers.shift();
      if (handler) handler(req, body, res);
      else json(res, 500, { error: { status: 500, code: "internal", message: "no handler" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  seen = [];
  handlers = [];
});

const client = (options: Record<string, unknown> = {}) =>
  new Client("sk_test_secret", { baseUrl, retryDelay: 1, maxRetryDelay: 5, ...options });

describe("Client", () => {
  it("reads an evaluation with the secret as a bearer token and parses it with the contract", async () => {
    handlers.push((_req, _body, res) => json(res, 200, evaluation({ verdict: "challenge", extra_field: 1 })));
    const ev = await client().getEvaluation("ev_1");
    expect(ev.verdict).toBe("challenge");
    expect(ev.user?.id).toBe("acct_42");
    expect(seen[0]).toMatchObject({ method: "GET", url: "/v3/evaluations/ev_1", auth: "Bearer sk_test_secret" });
  });

  it("a second consume rejects with ApiError already_consumed (409) and is not retried", async () => {
    handlers.push((_req, _body, res) => json(res, 200, evaluation({ consumed: true, consumed_at: "2026-11-22T19:44:00.000Z" })));
    handlers.push((_req, _body, res) =>
      json(res, 409, { error: { status: 409, code: "already_consumed", message: "evaluation already consumed" } }),
    );
    const c = client();
    expect((await c.consumeEvaluation("ev_1")).consumed).toBe(true);
    const error = await c.consumeEvaluation("ev_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: "already_consumed" });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /v3/evaluations/ev_1/consume", "POST /v3/evaluations/ev_1/consume"]);
  });

  it("retries a 5xx with backoff and succeeds when the server recovers", async () => {
    handlers.push((_req, _body, res) => json(res, 503, { error: { status: 503, code: "internal", message: "busy" } }));
    handlers.push((_req, _body, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>bad gateway</html>");
    });
    handlers.push((_req, _body, res) => json(res, 200, evaluation()));
    const ev = await client({ retries: 2 }).getEvaluation("ev_1");
    expect(ev.id).toBe("ev_1");
    expect(seen).toHaveLength(3);
  });

  it("gives up after the configured retries with the last ApiError", async () => {
    for (let i = 0; i < 5; i++)
      handlers.push((_req, _body, res) => json(res, 500, { error: { status: 500, code: "internal", message: "boom" } }));
    const error = await client({ retries: 1 })
      .getEvaluation("ev_1")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ApiError", status: 500, code: "internal" });
    expect(seen).toHaveLength(2);
  });

  it("does not retry 4xx answers", async () => {
    handlers.push((_req, _body, res) => json(res, 404, { error: { status: 404, code: "not_found", message: "no such evaluation" } }));
    const error = await client({ retries: 3 })
      .getEvaluation("nope")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
    expect(seen).toHaveLength(1);
  });

  it("a refused connection is a NetworkError after the retries", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const error = await new Client("sk", { baseUrl: `http://127.0.0.1:${port}`, retries: 2, retryDelay: 1, fetch: counting })
      .getEvaluation("ev_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(calls).toBe(3);
  });

  it("a server slower than the timeout gives a TimeoutError", async () => {
    handlers.push((_req, _body, res) => {
      setTimeout(() => json(res, 200, evaluation()), 1000);
    });
    const error = await client({ timeout: 100, retries: 0 })
      .getEvaluation("ev_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("an answer that does not match the contract is an ApiError invalid_response", async () => {
    handlers.push((_req, _body, res) => json(res, 200, { id: "ev_1" }));
    const error = await client()
      .getEvaluation("ev_1")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ApiError", code: "invalid_response" });
  });

  it("evaluate posts the body to /v3/evaluate/:action", async () => {
    handlers.push((_req, _body, res) => json(res, 200, evaluation({ action: "post_comment" })));
    const ev = await client().evaluate("post_comment", { user: "acct_42", content: { text: "hello" } });
    expect(ev.action).toBe("post_comment");
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v3/evaluate/post_comment" });
    expect(JSON.parse(seen[0]!.body)).toEqual({ user: "acct_42", content: { text: "hello" } });
  });

  it("listChallenges sends the query and parses the page", async () => {
    handlers.push((_req, _body, res) =>
      json(res, 200, { data: [{ id: "ch_1", status: "completed", createdAt: "2026-11-22T19:43:00.000Z" }], total: 1, page: 2, limit: 5 }),
    );
    const page = await client().listChallenges({ page: 2, limit: 5, status: "completed", user: "acct 42" });
    expect(page.data[0]?.status).toBe("completed");
    expect(seen[0]?.url).toBe("/v3/challenges?page=2&limit=5&status=completed&user=acct+42");
  });

  it("updateUser accepts a 204 and user ids are path-encoded", async () => {
    handlers.push((_req, _body, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(client().updateUser("a/b", { email: "a@example.com" })).resolves.toBeUndefined();
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v3/user/a%2Fb/update" });
  });

  it("getUserDevices, addToList and removeFromList parse their answers", async () => {
    handlers.push((_req, _body, res) =>
      json(res, 200, [
        {
          id: "dev_1",
          user: "acct_42",
          status: "attached",
          type: "computer",
          info: { browser: "Chrome" },
          metadata: {},
          actively_connected: true,
          createdAt: "2026-11-22T19:43:00.000Z",
          updatedAt: "2026-11-22T19:43:00.000Z",
        },
      ]),
    );
    handlers.push((_req, _body, res) => json(res, 200, { added: 2, updated: 0, total: 2 }));
    handlers.push((_req, _body, res) => json(res, 200, { removed: 1, total: 1 }));
    const c = client();
    expect((await c.getUserDevices("acct_42"))[0]?.type).toBe("computer");
    expect(await c.addToList("blocked_ips", { values: ["1.2.3.4", "5.6.7.8"], ttl: 60 })).toEqual({ added: 2, updated: 0, total: 2 });
    expect(await c.removeFromList("blocked_ips", { values: ["1.2.3.4"] })).toEqual({ removed: 1, total: 1 });
    expect(seen.map((s) => s.url)).toEqual(["/v3/user/acct_42/devices", "/v3/lists/blocked_ips/add", "/v3/lists/blocked_ips/remove"]);
  });

  it("overrideChallenge posts the reason to the challenge's override route and parses the challenge", async () => {
    const challenge = { id: "ch_1", status: "overridden", createdAt: "2026-11-22T19:43:00.000Z" };
    handlers.push((_req, _body, res) => json(res, 200, challenge));
    expect((await client().overrideChallenge("ch_1", { reason: "verified by phone" })).status).toBe("overridden");
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v3/challenges/ch_1/override", body: '{"reason":"verified by phone"}' });
    const bad = await client()
      .overrideChallenge("ch_1", { reason: "" })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ArgumentError);
    expect(seen).toHaveLength(1);
  });

  it("bad arguments reject with an ArgumentError naming them, before any request", async () => {
    const c = client();
    await expect(c.evaluate("bad action!", {})).rejects.toMatchObject({ name: "ArgumentError", param: "action" });
    await expect(c.updateUser("acct_42", { phone: "0612" })).rejects.toMatchObject({ param: "body.phone" });
    await expect(c.addToList("blocked", { values: [] })).rejects.toBeInstanceOf(ArgumentError);
    expect(seen).toHaveLength(0);
    expect(() => new Client("")).toThrow(ArgumentError);
  });
});

describe("identity verification helpers", () => {
  it("userToken is base64url HMAC-SHA256 of the user id under the identity secret, as node:crypto computes it", async () => {
    const { createHmac } = await import("node:crypto");
    for (const user of ["acct_42", "ünïcode-user", "a".repeat(256)]) {
      const expected = createHmac("sha256", "idsec_test").update(user, "utf8").digest("base64url");
      expect(await userToken("idsec_test", user)).toBe(expected);
    }
    await expect(userToken("", "acct_42")).rejects.toBeInstanceOf(ArgumentError);
    await expect(userToken("idsec_test", "")).rejects.toBeInstanceOf(ArgumentError);
  });

  it("attachDevice and detachDevice post to the device's attach and detach routes", async () => {
    const device = {
      id: "dev_1",
      user: "acct_42",
      status: "attached",
      type: "computer",
      info: {},
      metadata: {},
      actively_connected: false,
      createdAt: "2026-11-22T19:43:00.000Z",
      updatedAt: "2026-11-22T19:43:00.000Z",
    };
    handlers.push((_req, _body, res) => json(res, 200, device));
    handlers.push((_req, _body, res) => json(res, 200, { ...device, status: "detached" }));
    const client = new Client("sk_test_1", { baseUrl });
    expect((await client.attachDevice("dev_1", "acct_42")).status).toBe("attached");
    expect((await client.detachDevice("dev_1")).status).toBe("detached");
    expect(seen.slice(-2).map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([
      'POST /v3/devices/dev_1/attach {"user":"acct_42"}',
      "POST /v3/devices/dev_1/detach ",
    ]);
  });
});
