// The SDK's transport on the answers a page meets: a refusal (4xx) is asked once and rejects with the server's own
// code and message; a 5xx or a network failure is retried, within the bound.
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { ApiError, NetworkError } from "./errors.js";
import { transport } from "./transport.js";

const BASE = "https://tessera.example.com";
const post = transport({ baseUrl: BASE, timeout: 2_000, retries: 2 });
const Answer = z.object({ evaluation_id: z.string() });

function answering(...responses: (() => Response)[]) {
  const fetch = vi.fn(async () => {
    const next = responses.length > 1 ? responses.shift() : responses[0];
    return next!();
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

const refusal = (status: number, code: string, message: string) => () =>
  new Response(JSON.stringify({ error: { status, code, message } }), { status, headers: { "content-type": "application/json" } });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the SDK's transport", () => {
  for (const [status, code, message] of [
    [401, "unauthorized", "Unknown client_id: pass the client id of one of your project's environments"],
    [403, "forbidden", "Origin https://shop.example is not allowed for this client_id"],
    [400, "invalid_request", "Invalid email: one address"],
  ] as const) {
    it(`a ${status} is asked once and rejects with the server's code and message`, async () => {
      const fetch = answering(refusal(status, code, message));
      const error = await post("v3/client/evaluate/login", { client_id: "pk_x" }, Answer).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status, code });
      expect((error as Error).message).toBe(`Tessera: ${message} (HTTP ${status}, ${code})`);
      expect(fetch).toHaveBeenCalledTimes(1);
    });
  }

  it("a 503 is retried, and the answer after it is taken", async () => {
    const fetch = answering(refusal(503, "internal", "The store is unavailable right now"), () => Response.json({ evaluation_id: "ev_1" }));
    expect((await post("v3/client/evaluate/login", {}, Answer)).data).toEqual({ evaluation_id: "ev_1" });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("a network failure is retried within the bound, then rejects naming the server", async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    vi.stubGlobal("fetch", fetch);
    const error = await post("v3/client/evaluate/login", {}, Answer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(`Tessera: could not reach the Tessera server at ${BASE}`);
    expect(fetch).toHaveBeenCalledTimes(3);
  });
});
