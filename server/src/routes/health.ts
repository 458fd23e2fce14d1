// Liveness (/healthz: the process serves) and readiness (/readyz: the store answers too).

import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { sql } from "kysely";
import type { Services } from "../services.js";

const healthRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get("/healthz", { schema: { tags: ["health"], summary: "Liveness" }, logLevel: "warn" }, async () => ({ status: "ok" }));
  app.get("/readyz", { schema: { tags: ["health"], summary: "Readiness: the store answers" }, logLevel: "warn" }, async (_req, reply) => {
    try {
      await sql`select 1`.execute(services.store.db);
      return { status: "ok", store: services.store.dialect };
    } catch {
      return reply.status(503).send({ error: { status: 503, code: "internal", message: "Store unavailable" } });
    }
  });
};

export default healthRoutes;
