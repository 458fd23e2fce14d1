// The SDK's only door to the client API: ky with a per-attempt timeout and bounded retries (network errors and
// 5xx only: a 4xx is the server's answer to this very request, and asking again gets the same), every failure turned
// into one of the typed errors — a refusal with the server's own code and message — and every answer checked against
// the contract.
import ky, { HTTPError, TimeoutError as KyTimeoutError } from "ky";
import * as z from "zod/mini";
import { ErrorBody } from "../contract/common.js";
import { ApiError, NetworkError, TimeoutError } from "./errors.js";

export interface TransportOptions {
  baseUrl: string;
  timeout: number;
  retries: number;
}

export type Post = <T extends z.ZodMiniType>(path: string, body: unknown, schema: T) => Promise<{ data: z.infer<T>; logout: boolean }>;

export function transport(options: TransportOptions): Post {
  const http = ky.create({
    prefixUrl: options.baseUrl,
    timeout: options.timeout,
    // Credentials stay home: the client API is authorised by the client id, never by the customer's cookies.
    credentials: "omit",
    retry: {
      limit: options.retries,
      methods: ["post"],
      statusCodes: [500, 502, 503, 504],
      // 300 ms, 600 ms, 1.2 s …, capped so a page never waits long on a struggling server.
      backoffLimit: 3000,
    },
  });

  return async (path, body, schema) => {
    let raw: unknown;
    try {
      // JSON sent as text/plain keeps the request "simple": no CORS preflight round trip (the server parses it).
      raw = await http.post(path, { body: JSON.stringify(body), headers: { "content-type": "text/plain;charset=UTF-8" } }).json();
    } catch (error) {
      throw await translate(error, options.timeout, options.baseUrl);
    }
    const logout = typeof raw === "object" && raw !== null && (raw as { logout?: unknown }).logout === true;
    const parsed = z.safeParse(schema, raw);
    if (!parsed.success) throw new ApiError(200, "invalid_response", `unexpected answer from ${path}`, raw);
    return { data: parsed.data, logout };
  };
}

async function translate(error: unknown, timeout: number, baseUrl: string): Promise<Error> {
  if (error instanceof HTTPError) {
    const status = error.response.status;
    let body: unknown;
    try {
      body = await error.response.json();
    } catch {
      body = undefined;
    }
    const parsed = z.safeParse(ErrorBody, body);
    if (parsed.success) {
      const e = parsed.data.error;
      return new ApiError(status, e.code, e.message, body, e.param);
    }
    return new ApiError(status, status >= 500 ? "internal" : "http_error", `HTTP ${status}`, body);
  }
  if (error instanceof KyTimeoutError) return new TimeoutError(timeout);
  return new NetworkError(`could not reach the Tessera server at ${baseUrl}`, error);
}
