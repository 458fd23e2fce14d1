// Server API for evaluations (interface specification 4.1): read, consume once, evaluate from a backend.
import { ActionParam, ErrorBody, Evaluation, IdParam, ServerEvaluateRequest } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { conflict, notFound } from "../../errors.js";
import type { Services } from "../../services.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const evaluationRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { evaluationsService } = services;

  app.get(
    "/v3/evaluations/:id",
    { schema: { tags: ["evaluations"], summary: "Retrieve an evaluation", params: IdParam, response: { 200: Evaluation, ...errors } } },
    async (req) => {
      const ev = await evaluationsService.get(envOf(req).id, req.params.id);
      if (!ev) throw notFound("Evaluation");
      return ev;
    },
  );

  app.post(
    "/v3/evaluations/:id/consume",
    {
      schema: {
        tags: ["evaluations"],
        summary: "Consume an evaluation (once)",
        description: "The first call marks the evaluation consumed; every later call answers 409 already_consumed.",
        params: IdParam,
        response: { 200: Evaluation, 409: ErrorBody, ...errors },
      },
    },
    async (req) => {
      const res = await evaluationsService.consume(envOf(req).id, req.params.id);
      if (res.ok) return res.evaluation;
      if (res.reason === "not_found") throw notFound("Evaluation");
      throw conflict("already_consumed", "This evaluation was already consumed");
    },
  );

  app.post(
    "/v3/evaluate/:action",
    {
      schema: {
        tags: ["evaluations"],
        summary: "Evaluate an action from a backend, including content a user wrote",
        params: ActionParam,
        body: ServerEvaluateRequest,
        response: { 200: Evaluation, ...errors },
      },
    },
    async (req) => {
      const env = envOf(req);
      const b = req.body;
      let linked: Awaited<ReturnType<typeof evaluationsService.get>>;
      if (b.evaluation) {
        linked = await evaluationsService.get(env.id, b.evaluation);
        if (!linked) throw notFound("Evaluation named in `evaluation`");
      }
      const { evaluation } = await services.pipeline.evaluate({
        env,
        action: req.params.action,
        source: "server",
        ip: b.ip,
        userAgent: b.user_agent,
        headers: {},
        user: b.user ?? linked?.user?.id,
        email: b.email,
        phone: b.phone,
        metadata: b.metadata,
        signals: { components: {} },
        content: b.content,
        linkedEvaluationId: linked?.id,
        linkedFingerprintId: b.fingerprint ?? linked?.fingerprint?.id,
        at: Date.now(),
      });
      return evaluation;
    },
  );
};

export default evaluationRoutes;
