// GET /metrics (docs/operations.md): the process's metrics in the Prometheus text format. They reveal business volume
// (evaluations, verdicts, challenges), so they are not public: with METRICS_TOKEN set, a scraper sends it as a bearer
// token; without it, only a direct connection from this machine is answered (loopback, and no proxy in between: a
// reverse proxy on the same host connects from loopback on behalf of anyone, and says so with X-Forwarded-For).
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Services } from "../services.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

function directFromLoopback(req: FastifyRequest): boolean {
  const proxied = req.headers["x-forwarded-for"] !== undefined || req.headers.forwarded !== undefined;
  return !proxied && LOOPBACK.has(req.socket.remoteAddress ?? "");
}

export default async function metricsRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const { registry } = services.metrics;
  const token = services.config.METRICS_TOKEN;
  app.get("/metrics", { schema: { hide: true }, logLevel: "warn" }, async (req, reply) => {
    if (token ? !tokenMatches(req.headers.authorization, token) : !directFromLoopback(req)) {
      const status = token ? 401 : 403;
      const message = token
        ? "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>"
        : "Metrics are answered on loopback only; set METRICS_TOKEN to scrape them from elsewhere";
      return reply.status(status).send({ error: { status, code: token ? "unauthorized" : "forbidden", message } });
    }
    return reply
      .header("content-type", registry.contentType)
      .header("cache-control", "no-store")
      .send(await registry.metrics());
  });
}
