// GET /v3/stats/evaluations (docs/console.md): verdicts over time, per action, top reasons and challenge outcomes.
import { ErrorBody, EvaluationStats, StatsQuery } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { evaluationStats } from "../../console/stats.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const statsRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v3/stats/evaluations",
    {
      schema: {
        tags: ["statistics"],
        summary: "Evaluation statistics of a period",
        description:
          "`interval` hour (up to 31 days) or day (up to 400 days; default), buckets on UTC boundaries; `from` defaults to a day (hour) or a week (day) before `to`, which defaults to now.",
        querystring: StatsQuery,
        response: {
          200: ok(EvaluationStats, "Counts of the period: verdicts, buckets, actions, top reasons, challenges"),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (req) => evaluationStats(services, envOf(req).id, req.query),
  );
};

export default statsRoutes;
