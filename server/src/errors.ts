// The error classes of the API, each with a stable machine code, thrown by every layer; one Fastify handler
// (error-handler.ts) maps them to the wire format of docs/server-api.md: { error: { status, code, message, param? } }.
import type { ErrorCode } from "@tessera/sdk/contract";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, param?: string) => new ApiError(400, "invalid_request", message, param);
export const unauthorized = (message = "Missing or invalid credentials") => new ApiError(401, "unauthorized", message);
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);
export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
/** A user id Tessera has not met: which user, and how a user comes to exist (a typo is the usual cause). */
export const userNotFound = (id: string) =>
  new ApiError(
    404,
    "not_found",
    `No user ${JSON.stringify(id)} in this environment: Tessera meets a user at the first evaluation naming it, or at POST /v3/user/:id/update (check the id and the environment's key)`,
  );
export const conflict = (code: ErrorCode, message: string) => new ApiError(409, code, message);
export const rateLimited = (retryAfterSeconds: number, message = "Too many requests") =>
  new ApiError(429, "rate_limited", message, undefined, { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
