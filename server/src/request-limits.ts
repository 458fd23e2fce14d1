// What a request may cost before any route runs ("Bad input never costs more than it should"; docs/security.md): JSON nested
// at most 32 levels deep, a body that must arrive whole within REQUEST_TIMEOUT_MS, and HSTS in production.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "./config.js";
import { ApiError } from "./errors.js";

/**
 * Deepest JSON nesting accepted. The deepest legitimate body is a policy whose conditions nest 12 `all` nodes (an
 * object and an array each, about 26 levels with the policy around them); recursive code downstream (validation,
 * the policy engine) must never meet thousands of levels.
 */
export const MAX_JSON_DEPTH = 32;

/** The deepest nesting in a JSON text, scanned once without building anything; stops as soon as `limit` is passed. */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

type JsonParser = (req: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => void;

/**
 * Fastify's own JSON parser (prototype-poisoning safe) behind the depth check. An empty body is no body, as when no
 * Content-Type is sent: clients that always label their POSTs JSON must be able to call operations that take
 * none (consume, complete, open…); a route that needs a body still refuses it with a 400.
 */
export function depthLimitedJsonParser(app: FastifyInstance): JsonParser {
  const parse = app.getDefaultJsonParser("error", "error") as unknown as JsonParser;
  return (req, body, done) => {
    if (body.trim() === "") {
      done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(body)) {
      done(new ApiError(400, "invalid_request", `JSON nested deeper than ${MAX_JSON_DEPTH} levels`));
      return;
    }
    parse(req, body, done);
  };
}

const TIMEOUT_BODY = JSON.stringify({
  error: { status: 408, code: "request_timeout", message: "The request body did not arrive in time" },
});

/**
 * Node's requestTimeout stops counting once the headers are in: a body trickled a byte at a time held the socket (and
 * a parser waiting on it) for ever. Each request whose body is still arriving gets a deadline: past it, 408 and the
 * connection is closed.
 */
function bodyDeadline(timeoutMs: number) {
  return (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const raw = req.raw;
    if (raw.complete) return done();
    const res = reply.raw;
    const timer = setTimeout(() => {
      // Answered already (the route did not need the whole body), or the body is in: nothing to cut off.
      if (raw.complete || res.headersSent) return;
      // Fastify is still waiting for the body: take the reply over so that nothing else answers on this socket.
      reply.hijack();
      res.writeHead(408, { "content-type": "application/json; charset=utf-8", connection: "close" });
      res.end(TIMEOUT_BODY, () => raw.socket?.destroy());
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once("end", clear);
    res.once("finish", clear);
    res.once("close", clear);
    done();
  };
}

/** One year: browsers remember that this host is https-only (the usual value for HSTS preload lists). */
const HSTS = "max-age=31536000; includeSubDomains";

export function registerRequestLimits(app: FastifyInstance, config: Config): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, depthLimitedJsonParser(app));
  app.addHook("onRequest", bodyDeadline(config.REQUEST_TIMEOUT_MS));
  if (!config.isDev) {
    app.addHook("onRequest", (_req, reply, done) => {
      reply.header("strict-transport-security", HSTS);
      done();
    });
  }
}
