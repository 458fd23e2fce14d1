// Rate limits of the client API (429 with Retry-After; docs/server-api.md): per client IP (an IPv6 client by its /64) and per
// client id, counted by the shared limiter so that every instance behind a load balancer agrees. Applies to every /v3/client route, present
// and future, without each route opting in.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import { rateLimited } from "../errors.js";
import { perIpKey } from "../geo/ip.js";
import type { RateLimiter, RateLimitRule } from "./limiter.js";

/** The client API's limits are per minute (CLIENT_RATE_LIMIT, CLIENT_ID_RATE_LIMIT in config.ts). */
export const CLIENT_WINDOW_MS = 60_000;

function clientIdOf(req: FastifyRequest): string | undefined {
  const body = req.body as { client_id?: unknown } | undefined;
  const id = body && typeof body === "object" ? body.client_id : undefined;
  // An id that cannot be valid is refused by validation next; counting it would let garbage fill the counters.
  return typeof id === "string" && id.length > 0 && id.length <= 100 ? id : undefined;
}

export function registerClientRateLimit(app: FastifyInstance, services: { config: Config; rateLimiter: RateLimiter }): void {
  const { config, rateLimiter } = services;
  // preValidation: the body is parsed (the client id is in it) but no work has been done for the request yet.
  app.addHook("preValidation", async (req, reply) => {
    if (req.method === "OPTIONS" || !req.routeOptions.url?.startsWith("/v3/client/")) return;
    const rules: RateLimitRule[] = [{ key: `client-ip:${perIpKey(req.ip)}`, limit: config.CLIENT_RATE_LIMIT, windowMs: CLIENT_WINDOW_MS }];
    const clientId = clientIdOf(req);
    if (clientId) rules.push({ key: `client-id:${clientId}`, limit: config.CLIENT_ID_RATE_LIMIT, windowMs: CLIENT_WINDOW_MS });
    const results = await rateLimiter.hitMany(rules);
    let worst = 0;
    for (const r of results) if (!r.allowed) worst = Math.max(worst, r.retryAfterMs);
    if (worst > 0) {
      // A browser reading a 429 from another origin needs the CORS header to see it (and its Retry-After).
      const origin = req.headers.origin;
      if (origin)
        reply.header("access-control-allow-origin", origin).header("access-control-expose-headers", "retry-after").header("vary", "Origin");
      throw rateLimited(worst / 1000);
    }
  });
}
