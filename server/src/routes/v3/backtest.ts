// POST /v3/policies/backtest (SPEC.md 14): what a draft policy would have decided over the stored evaluations.
import { BacktestRequest, BacktestResult, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { backtest } from "../../console/backtest.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const backtestRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    "/v3/policies/backtest",
    {
      schema: {
        tags: ["policies"],
        summary: "Backtest a draft policy over stored evaluations",
        description:
          "Runs the environment's policies with and without the draft (`policy`, with `id` to replace a stored one) over the evaluations of `from`–`to` (default: the last 7 days; at most `limit`, newest first) using each evaluation's stored checks and risks, and counts the verdicts the draft changes. Lists are read as they are now. Changes nothing.",
        body: BacktestRequest,
        response: {
          200: ok(BacktestResult, "What the draft would have changed, with examples"),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (req) => backtest(services, envOf(req), req.body),
  );
};

export default backtestRoutes;
