// Request limits ("Bad input never costs more than it should"; docs/security.md), through the real app on both stores: JSON
// nested past 32 levels is a 400 (it was a 500), a body trickled slower than REQUEST_TIMEOUT_MS gets 408 and a closed
// connection (it was held open for ever), and a production server sends HSTS.
import net from "node:net";
import { ErrorBody } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** Short so that the trickle test ends quickly; the default is 30 s. */
const REQUEST_TIMEOUT_MS = 400;

const nested = (depth: number, open: string, close: string, inner = "1") => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

describeStores("request limits on %s", (kind) => {
  let t: TestApp;
  let port = 0;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0", REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), CONNECTION_TIMEOUT_MS: "60000" });
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it("JSON nested 5,000 deep is a 400 on the client API (text/plain) and the server API (application/json)", async () => {
    const client = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "content-type": "text/plain" },
      payload: `{"client_id":"${t.clientId}","metadata":${nested(5000, '{"a":', "}")}}`,
    });
    expect(client.statusCode, client.body).toBe(400);
    expect(strict(ErrorBody).parse(client.json()).error).toMatchObject({
      code: "invalid_request",
      message: "JSON nested deeper than 32 levels",
    });
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: { ...t.auth, "content-type": "application/json" },
      payload: `{"name":"x","verdict":"deny","conditions":${nested(5000, '{"not":', "}", '{"check":"ip","op":"exists"}')}}`,
    });
    expect(policy.statusCode, policy.body).toBe(400);
    expect(strict(ErrorBody).parse(policy.json()).error.code).toBe("invalid_request");
  });

  it("JSON within 32 levels still parses; brackets inside strings do not count as nesting", async () => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "content-type": "application/json" },
      // 31 levels: the body, signals, components, the component, and 27 arrays (metadata nests one level at most).
      payload: `{"client_id":"${t.clientId}","signals":{"components":{"deep":{"value":${nested(27, "[", "]")}}}},"metadata":{"text":"${"[{".repeat(100)}\\"["}}`,
    });
    expect(r.statusCode, r.body).toBe(200);
  });

  it("a body trickled a byte at a time is cut off with 408 and the connection closed", async () => {
    const s = net.connect(port, "127.0.0.1");
    let got = "";
    let sent = 0;
    const closed = new Promise<void>((resolve) => {
      s.on("data", (d) => {
        got += d.toString();
      });
      s.on("error", () => {});
      s.on("close", () => resolve());
    });
    await new Promise<void>((resolve) => s.on("connect", () => resolve()));
    s.write("POST /v3/client/evaluate/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n");
    // Bounded: one byte every REQUEST_TIMEOUT_MS / 8 (never idle long enough for the connection timeout), at most 5,000.
    const tick = setInterval(() => {
      if (sent >= 5000 || s.destroyed) clearInterval(tick);
      else {
        s.write(" ");
        sent++;
      }
    }, REQUEST_TIMEOUT_MS / 8);
    const safety = setTimeout(() => s.destroy(new Error("still open")), 40 * REQUEST_TIMEOUT_MS);
    await closed;
    clearInterval(tick);
    clearTimeout(safety);
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(got).toContain('"code":"request_timeout"');
    // Cut off while the body was still arriving.
    expect(sent).toBeLessThan(5000);
  });

  it("a request whose body arrived in time is answered normally, even if the handler outlives the deadline", async () => {
    const r = await fetch(`http://127.0.0.1:${port}/v3/client/evaluate/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: t.clientId }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("strict-transport-security")).toBeNull();
  });
});

describeStores("production headers on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0", NODE_ENV: "production" });
  });
  afterAll(async () => t?.close());

  it("a production server sends HSTS on every answer", async () => {
    for (const url of ["/healthz", "/v3/evaluations/ev_nope"]) {
      const r = await t.app.inject({ method: "GET", url, headers: t.auth });
      expect(r.headers["strict-transport-security"], url).toBe("max-age=31536000; includeSubDomains");
    }
  });
});
