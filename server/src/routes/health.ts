// Liveness (/healthz: the process serves) and readiness (/readyz: the store can be written to, is migrated, and
// answers within a deadline) — docs/operations.md.

import { ErrorBody, Health } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Services } from "../services.js";
import { storeErrorCode } from "../store/errors.js";
import { NotReady, StoreReadiness } from "../store/readiness.js";
import { ok as describeOk, SECURITY } from "./describe.js";

/**
 * The probe gives up after 1 s: docs/operations.md asks for a 503 within 2 s, and a healthy store answers in milliseconds
 * (a read and a one-row write), so a second leaves room for a loaded instance without calling it dead.
 */
export const READINESS_DEADLINE_MS = 1_000;

const healthRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const readiness = new StoreReadiness(services.store, {
    deadlineMs: READINESS_DEADLINE_MS,
    minFreeBytes: services.config.READY_MIN_FREE_DISK_MB * 1024 * 1024,
  });
  const docs = (summary: string, description: string, ok: string) => ({
    tags: ["health"],
    summary,
    description,
    security: SECURITY.none,
    response: { 200: describeOk(Health, ok), 503: ErrorBody },
  });
  app.get(
    "/healthz",
    {
      schema: docs(
        "Liveness",
        "Answers as long as the process serves requests; for a load balancer's liveness probe.",
        "The process serves",
      ),
      logLevel: "warn",
    },
    async () => ({ status: "ok" as const }),
  );
  app.get(
    "/readyz",
    {
      schema: docs(
        "Readiness: the store can be written to and is migrated",
        "Answers 200 when the store takes a write and holds every migration, 503 within 2 s otherwise (unreachable, read-only, full or empty store); for a load balancer's readiness probe.",
        "Ready",
      ),
      logLevel: "warn",
    },
    async (req, reply) => {
      try {
        await readiness.check();
        return { status: "ok" as const, store: services.store.dialect };
      } catch (err) {
        const reason = err instanceof NotReady ? err.message : `The store failed (${storeErrorCode(err)})`;
        req.log.warn({ reason }, "not ready");
        return reply
          .status(503)
          .header("cache-control", "no-store")
          .send({ error: { status: 503, code: "internal", message: `Not ready: ${reason}` } });
      }
    },
  );
};

export default healthRoutes;
