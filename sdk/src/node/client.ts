// The backend client (docs/README.md, docs/server-api.md, docs/sdk.md): what a customer's server imports to read and consume verdicts.
// Plain fetch (Node 20+, Deno, Bun, workers); every answer parsed by the shared contract; failures are typed;
// only network errors and 5xx are retried, with exponential backoff and a cap.
import * as z from "zod/mini";
import { ApiError, ArgumentError, argumentErrorFrom, NetworkError, refuseUnknownOptions, TimeoutError } from "../browser/errors.js";
import { Challenge, ChallengeListQuery, ChallengePage, OverrideChallengeRequest } from "../contract/challenge.js";
import { ErrorBody } from "../contract/common.js";
import { Device, DeviceAttachRequest } from "../contract/device.js";
import { ActionName, Evaluation, ServerEvaluateRequest } from "../contract/evaluation.js";
import { ListAddRequest, ListAddResponse, ListIdParam, ListRemoveRequest, ListRemoveResponse } from "../contract/list.js";
import { UserId, UserUpdateRequest } from "../contract/user.js";

export interface ClientOptions {
  /** Where the Tessera server answers, e.g. https://tessera.example.com. Default http://localhost:8080. */
  baseUrl?: string;
  /** Milliseconds per attempt (default 10 000). A timed-out call is not retried: the server may have acted. */
  timeout?: number;
  /** Extra attempts after a network error or a 5xx (default 2). */
  retries?: number;
  /** First backoff delay in ms (default 200), doubled per retry. */
  retryDelay?: number;
  /** Longest backoff delay in ms (default 2000). */
  maxRetryDelay?: number;
  /** A fetch implementation, for runtimes or tests that need their own. */
  fetch?: typeof fetch;
}

/** Every option the constructor knows: any other is refused (UnknownOptionError), never silently ignored. */
const CLIENT_OPTIONS = ["baseUrl", "timeout", "retries", "retryDelay", "maxRetryDelay", "fetch"] as const;

const DeviceList = z.array(Device);
const NoBody = z.undefined();

type Query = Partial<z.input<typeof ChallengeListQuery>>;

function check<T extends z.ZodMiniType>(schema: T, value: unknown, name: string): z.infer<T> {
  // A field the contract does not know is refused here, not dropped: `emial` would otherwise update nothing.
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  if (shape && value && typeof value === "object" && !Array.isArray(value)) refuseUnknownOptions(name, value, Object.keys(shape));
  const result = z.safeParse(schema, value);
  if (!result.success) throw argumentErrorFrom(name, result.error.issues);
  return result.data;
}

const id = (value: unknown, name: string): string => encodeURIComponent(check(UserId, value, name));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The user_token of `user` for the browser SDK (identity verification; docs/security.md): base64url (no padding) of
 * HMAC-SHA256 over the user id (UTF-8) with the environment's identity secret (`tessera keys identity-secret`).
 * Compute it on your backend for the signed-in user and hand it to the page; never ship the secret to a browser.
 * Web Crypto, so it runs wherever this client does.
 */
export async function userToken(identitySecret: string, user: string): Promise<string> {
  if (typeof identitySecret !== "string" || identitySecret.length === 0) throw new ArgumentError("identitySecret", "required");
  check(UserId, user, "user");
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(identitySecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(user)));
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export class Client {
  readonly #secret: string;
  readonly #baseUrl: string;
  readonly #timeout: number;
  readonly #retries: number;
  readonly #retryDelay: number;
  readonly #maxRetryDelay: number;
  readonly #fetch: typeof fetch;

  constructor(secret: string, options: ClientOptions = {}) {
    if (typeof secret !== "string" || secret.length === 0) throw new ArgumentError("secret", "a secret key is required");
    refuseUnknownOptions("options", options, CLIENT_OPTIONS, { domain: "baseUrl (a full URL, e.g. https://tessera.example.com)" });
    this.#secret = secret;
    if (options.baseUrl !== undefined && typeof options.baseUrl !== "string")
      throw new ArgumentError("options.baseUrl", "must be an http(s) URL");
    this.#baseUrl = (options.baseUrl ?? "http://localhost:8080").replace(/\/+$/, "");
    this.#timeout = options.timeout ?? 10_000;
    this.#retries = options.retries ?? 2;
    this.#retryDelay = options.retryDelay ?? 200;
    this.#maxRetryDelay = options.maxRetryDelay ?? 2000;
    this.#fetch = options.fetch ?? globalThis.fetch;
    if (!/^https?:\/\//.test(this.#baseUrl)) throw new ArgumentError("baseUrl", "must be an http(s) URL");
    const numbers = { timeout: this.#timeout, retries: this.#retries, retryDelay: this.#retryDelay, maxRetryDelay: this.#maxRetryDelay };
    for (const [name, value] of Object.entries(numbers)) {
      if (!Number.isInteger(value) || value < 0) throw new ArgumentError(`options.${name}`, "must be a non-negative integer");
    }
    if (typeof this.#fetch !== "function") throw new ArgumentError("options.fetch", "must be a fetch function");
  }

  /** Reads an evaluation (the verdict the browser cannot see). */
  async getEvaluation(evaluationId: string): Promise<Evaluation> {
    return this.#call("GET", `/v3/evaluations/${id(evaluationId, "evaluationId")}`, undefined, Evaluation);
  }

  /** Marks an evaluation used; a second consume rejects with ApiError code `already_consumed` (409). */
  async consumeEvaluation(evaluationId: string): Promise<Evaluation> {
    return this.#call("POST", `/v3/evaluations/${id(evaluationId, "evaluationId")}/consume`, undefined, Evaluation);
  }

  /** Evaluates an action from the backend (e.g. content a user wrote), optionally tied to a client evaluation. */
  async evaluate(action: string, body: z.input<typeof ServerEvaluateRequest> = {}): Promise<Evaluation> {
    const name = check(ActionName, action, "action");
    const payload = check(ServerEvaluateRequest, body, "body");
    return this.#call("POST", `/v3/evaluate/${encodeURIComponent(name)}`, payload, Evaluation);
  }

  async getChallenge(challengeId: string): Promise<Challenge> {
    return this.#call("GET", `/v3/challenges/${id(challengeId, "challengeId")}`, undefined, Challenge);
  }

  /**
   * Resolves a pending challenge as an admin (e.g. your support verified the user another way): status `overridden`,
   * the challenged device joins the account, and a `challenge.overridden` webhook carries the `reason`.
   */
  async overrideChallenge(challengeId: string, options: { reason?: string } = {}): Promise<Challenge> {
    return this.#call(
      "POST",
      `/v3/challenges/${id(challengeId, "challengeId")}/override`,
      check(OverrideChallengeRequest, options, "options"),
      Challenge,
    );
  }

  /** Lists challenges, newest first: `{ data, total, page, limit }`. */
  async listChallenges(query: Query = {}): Promise<z.infer<typeof ChallengePage>> {
    const q = check(ChallengeListQuery, query, "query");
    const params = new URLSearchParams({ page: String(q.page), limit: String(q.limit) });
    if (q.status) params.set("status", q.status);
    if (q.user) params.set("user", q.user);
    return this.#call("GET", `/v3/challenges?${params}`, undefined, ChallengePage);
  }

  /** The user's devices; the user as its id or as `{ user }`. */
  async getUserDevices(user: string | { user: string }): Promise<Device[]> {
    const name = typeof user === "object" && user !== null ? check(z.object({ user: UserId }), user, "getUserDevices").user : user;
    return this.#call("GET", `/v3/user/${id(name, "user")}/devices`, undefined, DeviceList);
  }

  /** Attaches a device (an evaluation's `device`) to a user's account: the backend's side of the SDK's `attach`. */
  async attachDevice(device: string, user: string): Promise<Device> {
    const body = check(DeviceAttachRequest, { user }, "user");
    return this.#call("POST", `/v3/devices/${id(device, "device")}/attach`, body, Device);
  }

  /** Detaches a device from its user; its SDK is told to log out at its next call. */
  async detachDevice(device: string): Promise<Device> {
    return this.#call("POST", `/v3/devices/${id(device, "device")}/detach`, undefined, Device);
  }

  /**
   * Changes only the fields sent (`email`, `phone`, `metadata`, `groups`): metadata is merged key by key (`null`
   * removes a key), groups (objects `{ id, name?, metadata? }` or ids) replace the stored ones.
   */
  async updateUser(user: string, body: z.input<typeof UserUpdateRequest>): Promise<void> {
    const payload = check(UserUpdateRequest, body, "body");
    await this.#call("POST", `/v3/user/${id(user, "user")}/update`, payload, NoBody);
  }

  /** Adds `value` or `values` (up to 500) to a list, with an optional `comment` and `ttl` in seconds. */
  async addToList(list: string, body: z.input<typeof ListAddRequest>): Promise<z.infer<typeof ListAddResponse>> {
    const { id: listId } = check(ListIdParam, { id: list }, "list");
    return this.#call("POST", `/v3/lists/${encodeURIComponent(listId)}/add`, check(ListAddRequest, body, "body"), ListAddResponse);
  }

  async removeFromList(list: string, body: z.input<typeof ListRemoveRequest>): Promise<z.infer<typeof ListRemoveResponse>> {
    const { id: listId } = check(ListIdParam, { id: list }, "list");
    return this.#call("POST", `/v3/lists/${encodeURIComponent(listId)}/remove`, check(ListRemoveRequest, body, "body"), ListRemoveResponse);
  }

  async #call<T extends z.ZodMiniType>(method: "GET" | "POST", path: string, body: unknown, schema: T): Promise<z.infer<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(method, path, body, schema);
      } catch (error) {
        const retriable = error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
        if (!retriable || attempt >= this.#retries) throw error;
        // 200 ms, 400 ms, 800 ms … capped: a short outage is bridged, a long one fails fast.
        await sleep(Math.min(this.#maxRetryDelay, this.#retryDelay * 2 ** attempt));
      }
    }
  }

  async #once<T extends z.ZodMiniType>(method: string, path: string, body: unknown, schema: T): Promise<z.infer<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#secret}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(`${this.#baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeout),
      });
      text = await response.text();
    } catch (error) {
      if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) throw new TimeoutError(this.#timeout);
      throw new NetworkError(`could not reach ${this.#baseUrl}`, error);
    }
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      throw new ApiError(
        response.status,
        response.ok ? "invalid_response" : response.status >= 500 ? "internal" : "http_error",
        `non-JSON answer from ${method} ${path}`,
        text,
      );
    }
    if (!response.ok) {
      const parsed = z.safeParse(ErrorBody, json);
      if (parsed.success) {
        const e = parsed.data.error;
        throw new ApiError(response.status, e.code, e.message, json, e.param);
      }
      throw new ApiError(response.status, response.status >= 500 ? "internal" : "http_error", `HTTP ${response.status}`, json);
    }
    const parsed = z.safeParse(schema, json);
    if (!parsed.success) {
      throw new ApiError(response.status, "invalid_response", `answer of ${method} ${path} does not match the contract`, json);
    }
    return parsed.data;
  }
}
