// The one Fastify error handler: the API's errors (errors.ts), the framework's, a failed validation and an unavailable
// store, each in the wire format { error: { status, code, message, param? } }. The HTTP layer's: the error classes are
// every layer's vocabulary, the answer is the routes'.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ApiError } from "./errors.js";
import { isStoreUnavailable } from "./store/errors.js";

/** PostgreSQL's character_not_in_repertoire: "invalid byte sequence for encoding UTF8: 0x00". */
const PG_NUL_IN_TEXT = "22021";

/** Seconds a client is asked to wait after a 503 for an unavailable store: pools reconnect within about that. */
const STORE_RETRY_AFTER_S = 1;

function send(reply: FastifyReply, status: number, code: string, message: string, param?: string) {
  return reply.status(status).send({ error: { status, code, message, ...(param ? { param } : {}) } });
}

/** One validation issue as fastify-type-provider-zod reports it: `instancePath` is `/a/0/b`. */
type ValidationIssue = { instancePath?: string; message?: string };

function describeIssue(where: string, issue: ValidationIssue | undefined): { message: string; param?: string } {
  if (!issue) return { message: `Invalid ${where}` };
  const param = (issue.instancePath ?? "").split("/").filter(Boolean).join(".") || undefined;
  return { message: `Invalid ${param ?? where}: ${issue.message ?? "invalid value"}`, param };
}

/** Errors Fastify raises before routing (bad URL encoding, an over-long path parameter), in the same wire format. */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH") void send(reply, 414, "invalid_request", "A path parameter is too long");
  else void send(reply, 400, "invalid_request", err.code === "FST_ERR_BAD_URL" ? "Malformed URL" : err.message);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError | Error, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ApiError) {
      if (err.headers) reply.headers(err.headers);
      return send(reply, err.status, err.code, err.message, err.param);
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const { message, param } = describeIssue(err.validationContext ?? "request", err.validation[0] as ValidationIssue | undefined);
      return send(reply, 400, "invalid_request", message, param);
    }
    const fe = err as FastifyError;
    if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE") return send(reply, 413, "payload_too_large", "Request body is too large");
    if (fe.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
      return send(reply, 415, "unsupported_media_type", "Content-Type must be application/json");
    if (fe.code === "FST_ERR_CTP_EMPTY_JSON_BODY") return send(reply, 400, "invalid_request", "Body must not be empty JSON");
    if (fe.code === "FST_ERR_CTP_INVALID_JSON_BODY" || (fe.statusCode === 400 && err instanceof SyntaxError))
      return send(reply, 400, "invalid_request", "Malformed JSON body");
    if (fe.statusCode === 429) {
      return send(reply, 429, "rate_limited", "Too many requests");
    }
    if (typeof fe.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
      return send(reply, fe.statusCode, fe.statusCode === 404 ? "not_found" : "invalid_request", fe.message);
    }
    // PostgreSQL refuses a NUL character in text (SQLite stores it): the input is at fault, not the server. Found by
    // fuzzing on both stores (test/fuzz.test.ts): GET /v3/challenges/%00 was a 500 on PostgreSQL.
    if ((err as { code?: unknown }).code === PG_NUL_IN_TEXT)
      return send(reply, 400, "invalid_request", "Text must not contain NUL characters");
    // A lost connection, a timeout, a read-only or full store: the client should retry, not report a bug (docs/operations.md).
    if (isStoreUnavailable(err)) {
      req.log.warn({ err }, "store unavailable");
      reply.header("retry-after", String(STORE_RETRY_AFTER_S));
      return send(reply, 503, "internal", "The store is unavailable right now: retry shortly");
    }
    req.log.error({ err }, "unhandled error");
    return send(reply, 500, "internal", "Internal server error");
  });

  app.setNotFoundHandler((req, reply) => send(reply, 404, "not_found", `No route ${req.method} ${req.url.split("?")[0]}`));
}
