// POST /v3/policies/backtest (docs/console.md): what a draft policy would have decided over the stored evaluations, one run
// at a time per caller (an operator's session, or a secret key), within the time budget (console/backtest.ts).
import { createHash } from "node:crypto";
import { BacktestRequest, BacktestResult, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BEARER, envOf } from "../../auth.js";
import { BacktestGate, backtest } from "../../console/backtest.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

/** Who is asking: the operator of a console session, else the secret key (hashed: the gate holds no secret). */
function callerOf(req: FastifyRequest): string {
  if (req.operator) return `operator:${req.operator.id}`;
  const secret = BEARER.exec(req.headers.authorization ?? "")?.[1] ?? "";
  return `key:${createHash("sha256").update(secret).digest("base64url")}`;
}

const backtestRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const gate = new BacktestGate(services.config.BACKTEST_BUDGET_MS);
  app.post(
    "/v3/policies/backtest",
    {
      schema: {
        tags: ["policies"],
        summary: "Backtest a draft policy over stored evaluations",
        description:
          "Runs the environment's policies with and without the draft (`policy`, with `id` to replace a stored one) over the evaluations of `from`–`to` (default: the last 7 days; at most `limit`, newest first) using each evaluation's stored checks and risks, and counts the verdicts the draft changes. Lists are read as they are now. Changes nothing. One run at a time per operator or key (a second answers 429); past the server's time budget (BACKTEST_BUDGET_MS, default 5 s) the answer covers the evaluations examined so far with `partial: true`.",
        body: BacktestRequest,
        response: {
          200: ok(BacktestResult, "What the draft would have changed, with examples"),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req) => gate.run(callerOf(req), () => backtest(services, envOf(req), req.body)),
  );
};

export default backtestRoutes;
