// The compatibility layer's backend client (docs/migrating.md): the hosted service's options and argument shapes reach
// Tessera's endpoints, and an option or argument it does not know is refused by name — as is one Tessera's own client
// does not know.
import { describe, expect, it } from "vitest";
import { ApiError, ArgumentError, Client, UnknownOptionError } from "../node/index.js";
import { RuptAPI, RuptApiError, RuptNetworkError } from "./api.js";

interface Call {
  method: string;
  url: string;
  auth: string | null;
  body: unknown;
}

/** A fetch that records each call and answers `answer(call)` (default: 200 with `{}`). */
function fakeFetch(answer: (call: Call) => { status: number; body?: unknown } = () => ({ status: 200, body: {} })) {
  const calls: Call[] = [];
  const fetch = (async (input: string, init: RequestInit = {}) => {
    const call = {
      method: init.method ?? "GET",
      url: String(input),
      auth: new Headers(init.headers).get("authorization"),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    };
    calls.push(call);
    const { status, body } = answer(call);
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const at = "2026-11-22T19:43:00.000Z";
const device = {
  id: "dev_1",
  user: "acct_42",
  status: "attached",
  type: "computer",
  info: {},
  metadata: {},
  actively_connected: true,
  createdAt: at,
  updatedAt: at,
};
const evaluation = { id: "ev_1", action: "login", verdict: "allow", reasons: [], createdAt: at, updatedAt: at };

describe("RuptAPI, the service's backend client over Tessera", () => {
  it("domain: a bare host gets https, a URL is used as it is; the secret is the bearer", async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: evaluation }));
    await new RuptAPI("sk_test_1", { domain: "tessera.example.com", fetch }).getEvaluation("ev_1");
    await new RuptAPI("sk_test_1", { domain: "http://localhost:8080", fetch }).evaluation.get("ev_1");
    expect(calls.map((c) => c.url)).toEqual([
      "https://tessera.example.com/v3/evaluations/ev_1",
      "http://localhost:8080/v3/evaluations/ev_1",
    ]);
    expect(calls[0]?.auth).toBe("Bearer sk_test_1");
  });

  it("without a domain it refuses to start instead of calling some default host", () => {
    expect(() => new RuptAPI("sk_test_1")).toThrow(ArgumentError);
    expect(() => new RuptAPI("sk_test_1")).toThrow(/options\.domain.*required/);
  });

  it("an unknown option is refused by name (a misspelt domain would otherwise go nowhere)", () => {
    const e = (() => {
      try {
        new RuptAPI("sk_test_1", { domian: "tessera.example.com" } as never);
      } catch (error) {
        return error;
      }
    })() as UnknownOptionError;
    expect(e).toBeInstanceOf(UnknownOptionError);
    expect(e.param).toBe("options.domian");
    expect(e.options).toEqual(["domian"]);
  });

  it("getUserDevices({ user }) and getUserDevices(user) read the user's devices", async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: [device] }));
    const rupt = new RuptAPI("sk", { domain: "t.example", fetch });
    expect(await rupt.getUserDevices({ user: "acct 42" })).toHaveLength(1);
    await rupt.getUserDevices("acct 42");
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      "GET https://t.example/v3/user/acct%2042/devices",
      "GET https://t.example/v3/user/acct%2042/devices",
    ]);
    await expect(rupt.getUserDevices({ usr: "acct_42" } as never)).rejects.toMatchObject({ param: "getUserDevices.usr" });
  });

  it("addToList and removeFromList take the service's object, `value` or `values` (even a single string)", async () => {
    const { fetch, calls } = fakeFetch((c) => ({
      status: 200,
      body: c.url.endsWith("/add") ? { added: 1, updated: 0, total: 1 } : { removed: 1, total: 0 },
    }));
    const rupt = new RuptAPI("sk", { domain: "t.example", fetch });
    await rupt.addToList({ list: "blocked", values: ["acct_1", "acct_2"], comment: "chargeback", ttl: 60 });
    await rupt.addToList({ list: "blocked", value: "acct_3" });
    await rupt.addToList("blocked", { value: "acct_4" });
    await rupt.removeFromList({ list: "blocked", values: "acct_1" });
    expect(calls.map((c) => [c.url, c.body])).toEqual([
      ["https://t.example/v3/lists/blocked/add", { values: ["acct_1", "acct_2"], comment: "chargeback", ttl: 60 }],
      ["https://t.example/v3/lists/blocked/add", { values: ["acct_3"] }],
      ["https://t.example/v3/lists/blocked/add", { values: ["acct_4"] }],
      ["https://t.example/v3/lists/blocked/remove", { values: ["acct_1"] }],
    ]);
    await expect(rupt.addToList({ list: "blocked", value: "a", values: ["b"] })).rejects.toMatchObject({ param: "addToList.values" });
    await expect(rupt.addToList({ list: "blocked", value: "a", expiry: 5 } as never)).rejects.toBeInstanceOf(UnknownOptionError);
  });

  it("updateUser({ user, … }) sends the rest as the update; group objects pass; an unknown field is refused", async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 204 }));
    const rupt = new RuptAPI("sk", { domain: "t.example", fetch });
    await rupt.updateUser({ user: "acct_42", email: "a@example.com", metadata: { plan: "pro" }, groups: { id: "org_1", name: "Acme" } });
    expect(calls[0]).toMatchObject({
      method: "POST",
      url: "https://t.example/v3/user/acct_42/update",
      body: { email: "a@example.com", metadata: { plan: "pro" }, groups: { id: "org_1", name: "Acme" } },
    });
    await expect(rupt.updateUser({ user: "acct_42", emial: "a@example.com" } as never)).rejects.toMatchObject({
      param: "updateUser.emial",
    });
    await expect(rupt.updateUser({ email: "a@example.com" } as never)).rejects.toMatchObject({ param: "updateUser.user" });
  });

  it("errors carry the service's names too: a second consume is a RuptApiError with status 409", async () => {
    const { fetch } = fakeFetch(() => ({ status: 409, body: { error: { status: 409, code: "already_consumed", message: "used" } } }));
    const error = await new RuptAPI("sk", { domain: "t.example", fetch }).consumeEvaluation("ev_1").catch((e) => e);
    expect(error).toBeInstanceOf(RuptApiError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: "already_consumed" });
    expect(RuptAPI.RuptNetworkError).toBe(RuptNetworkError);
  });
});

describe("Tessera's own backend client refuses what it does not know", () => {
  it("an unknown option names itself; the service's `domain` says what it is called here", () => {
    const e = (() => {
      try {
        new Client("sk", { domain: "tessera.example.com" } as never);
      } catch (error) {
        return error;
      }
    })() as UnknownOptionError;
    expect(e).toBeInstanceOf(UnknownOptionError);
    expect(e.message).toMatch(/domain is baseUrl/);
    // Its honest look-alike: the options it knows still work.
    expect(() => new Client("sk", { baseUrl: "https://t.example", timeout: 5000, retries: 0, maxRetryDelay: 100 })).not.toThrow();
  });

  it("an unknown field of a call's body is refused instead of dropped; `value` is accepted beside `values`", async () => {
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: { added: 1, updated: 0, total: 1 } }));
    const client = new Client("sk", { baseUrl: "https://t.example", fetch });
    await expect(client.updateUser("acct_42", { emial: "a@example.com" } as never)).rejects.toMatchObject({ param: "body.emial" });
    await client.addToList("blocked", { value: "acct_1" });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toEqual({ value: "acct_1" });
    const { fetch: devicesFetch, calls: deviceCalls } = fakeFetch(() => ({ status: 200, body: [] }));
    await new Client("sk", { baseUrl: "https://t.example", fetch: devicesFetch }).getUserDevices({ user: "acct_42" });
    expect(deviceCalls[0]?.url).toBe("https://t.example/v3/user/acct_42/devices");
  });
});
