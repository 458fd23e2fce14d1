// The hosted service's backend client, by its documented names (docs/migrating.md): `new RuptAPI(secret, { domain })`
// and its calls with their argument shapes, mapped onto Tessera's backend client (sdk/src/node/client.ts). A backend
// written against the service changes its import line and its keys; every option and argument is checked, and one
// this layer does not know is refused with an UnknownOptionError naming it, never silently dropped.
import * as z from "zod/mini";
import { ApiError, ArgumentError, argumentErrorFrom, NetworkError, refuseUnknownOptions, TimeoutError } from "../browser/errors.js";
import type { Challenge } from "../contract/challenge.js";
import type { Device } from "../contract/device.js";
import type { Evaluation } from "../contract/evaluation.js";
import type { ListAddResponse, ListRemoveResponse } from "../contract/list.js";
import { UserUpdateRequest } from "../contract/user.js";
import { Client } from "../node/client.js";
import { domainUrl } from "./domain.js";

export interface RuptAPIOptions {
  /**
   * Your Tessera server: a bare host (`tessera.example.com`, https is added) or a full URL used as it is
   * (`http://localhost:8080`). Required: there is no hosted default to fall back to.
   */
  domain?: string;
  /** Tessera's own name for the same thing, a full URL; give one of the two. */
  baseUrl?: string;
  /** Milliseconds per attempt (default 10 000). */
  timeout?: number;
  /** Extra attempts after a network error or a 5xx (default 3, as the service's client). */
  retries?: number;
  /** Cap in ms of the exponential backoff between retries (default 5 000, as the service's client). */
  maxRetryDelay?: number;
  /** A fetch implementation, for runtimes or tests that need their own. */
  fetch?: typeof fetch;
}

const OPTIONS = ["domain", "baseUrl", "timeout", "retries", "maxRetryDelay", "fetch"] as const;

type ListValues = { value?: string; values?: string | string[] };
export type AddToListParams = ListValues & { list: string; comment?: string; ttl?: number };
export type RemoveFromListParams = ListValues & { list: string };
export type UpdateUserParams = { user: string } & z.input<typeof UserUpdateRequest>;

function objectArgument(call: string, value: unknown, known: readonly string[]): Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new ArgumentError(call, "expected an object");
  refuseUnknownOptions(call, value, known);
  return value as Record<string, unknown>;
}

function required(call: string, value: Record<string, unknown>, name: string): string {
  const v = value[name];
  if (typeof v !== "string" || v.length === 0) throw new ArgumentError(`${call}.${name}`, "required");
  return v;
}

/** `value` or `values` (the service's docs show `values` as a single string too), as Tessera's `values`. */
function valuesOf(call: string, args: ListValues): { values: string[] } {
  if ((args.value === undefined) === (args.values === undefined)) throw new ArgumentError(`${call}.values`, "send either value or values");
  const values = args.values ?? args.value;
  return { values: typeof values === "string" ? [values] : (values as string[]) };
}

export class RuptAPI {
  /** The typed errors under the service's names; the same classes as Tessera's (`instanceof` works with both). */
  static readonly RuptApiError = ApiError;
  static readonly RuptNetworkError = NetworkError;
  static readonly RuptTimeoutError = TimeoutError;

  readonly #client: Client;
  /** The service's quick-start spelling: `rupt.evaluation.get(id)`. */
  readonly evaluation: { get(id: string): Promise<Evaluation>; consume(id: string): Promise<Evaluation> };

  constructor(secret: string, options: RuptAPIOptions = {}) {
    refuseUnknownOptions("options", options, OPTIONS);
    const { domain, baseUrl, ...rest } = options;
    if (domain !== undefined && baseUrl !== undefined) throw new ArgumentError("options.domain", "give domain or baseUrl, not both");
    const url = baseUrl ?? (typeof domain === "string" && domain ? domainUrl(domain) : undefined);
    if (url === undefined)
      throw new ArgumentError("options.domain", "required: the address of your Tessera server, e.g. tessera.example.com");
    this.#client = new Client(secret, { retries: 3, maxRetryDelay: 5000, ...rest, baseUrl: url });
    this.evaluation = { get: (id) => this.getEvaluation(id), consume: (id) => this.consumeEvaluation(id) };
  }

  getEvaluation(evaluationId: string): Promise<Evaluation> {
    return this.#client.getEvaluation(evaluationId);
  }

  /** Single use: a second consume rejects with RuptApiError status 409 (code `already_consumed`). */
  consumeEvaluation(evaluationId: string): Promise<Evaluation> {
    return this.#client.consumeEvaluation(evaluationId);
  }

  getChallenge(challengeId: string): Promise<Challenge> {
    return this.#client.getChallenge(challengeId);
  }

  /** `getUserDevices({ user })` (the service's shape) or `getUserDevices(user)`. */
  async getUserDevices(params: { user: string } | string): Promise<Device[]> {
    if (typeof params === "string") return this.#client.getUserDevices(params);
    return this.#client.getUserDevices(required("getUserDevices", objectArgument("getUserDevices", params, ["user"]), "user"));
  }

  /** `updateUser({ user, email?, phone?, metadata?, groups? })`: metadata merged key by key, groups replaced. */
  async updateUser(params: UpdateUserParams): Promise<void> {
    const args = objectArgument("updateUser", params, ["user", ...Object.keys(UserUpdateRequest.shape)]);
    const { user: _user, ...body } = args;
    const parsed = z.safeParse(UserUpdateRequest, body);
    if (!parsed.success) throw argumentErrorFrom("updateUser", parsed.error.issues);
    await this.#client.updateUser(required("updateUser", args, "user"), parsed.data);
  }

  /** `addToList({ list, value | values, comment?, ttl? })`, or `addToList(list, { value | values, … })`. */
  async addToList(params: AddToListParams | string, more?: Omit<AddToListParams, "list">): Promise<z.infer<typeof ListAddResponse>> {
    const known = ["list", "value", "values", "comment", "ttl"];
    const args = (
      typeof params === "string"
        ? { ...objectArgument("addToList", more, known.slice(1)), list: params }
        : objectArgument("addToList", params, known)
    ) as AddToListParams;
    const body = {
      ...valuesOf("addToList", args),
      ...(args.comment !== undefined ? { comment: args.comment } : {}),
      ...(args.ttl !== undefined ? { ttl: args.ttl } : {}),
    };
    return this.#client.addToList(required("addToList", args, "list"), body);
  }

  /** `removeFromList({ list, value | values })`, or `removeFromList(list, { value | values })`. */
  async removeFromList(
    params: RemoveFromListParams | string,
    more?: Omit<RemoveFromListParams, "list">,
  ): Promise<z.infer<typeof ListRemoveResponse>> {
    const known = ["list", "value", "values"];
    const args = (
      typeof params === "string"
        ? { ...objectArgument("removeFromList", more, known.slice(1)), list: params }
        : objectArgument("removeFromList", params, known)
    ) as RemoveFromListParams;
    return this.#client.removeFromList(required("removeFromList", args, "list"), valuesOf("removeFromList", args));
  }
}

export default RuptAPI;
export { ArgumentError, UnknownOptionError } from "../browser/errors.js";
export { ApiError as RuptApiError, NetworkError as RuptNetworkError, TimeoutError as RuptTimeoutError };
