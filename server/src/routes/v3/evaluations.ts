// Server API for evaluations (docs/server-api.md): read, consume once, evaluate from a backend.
import { ActionParam, ErrorBody, Evaluation, IdParam, ServerEvaluateRequest } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { checkContacts } from "../../delivery/addresses.js";
import { conflict, notFound } from "../../errors.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const evaluationRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { evaluationsService } = services;

  app.get(
    "/v3/evaluations/:id",
    {
      schema: {
        tags: ["evaluations"],
        summary: "Retrieve an evaluation",
        description:
          "Your backend reads the verdict of an evaluation the browser SDK made (its id came with the form), with the reasons, risks, checks, matched policy, geolocation and challenge. Check `action` and `user.id` before acting on it, then consume it.",
        params: IdParam,
        response: { 200: ok(Evaluation, "The evaluation"), ...errors },
      },
    },
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
        description:
          "Marks the evaluation used so that the same id cannot let anyone in twice: the first call answers it with `consumed: true` and `consumed_at`; every later call, on any instance, answers 409 `already_consumed`. Takes no body.",
        params: IdParam,
        response: { 200: ok(Evaluation, "The evaluation, now consumed"), 409: ErrorBody, ...errors },
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
        description:
          "Runs the pipeline for an action your backend sees (a login checked server-side, a payment, a post): the user, email, phone, IP and user agent you pass, optionally the browser's client `evaluation` (its device and fingerprint), and `content` (title, text, links) scored for links, contact details, spam patterns and repetition across users. Contacts given here are the user's.",
        params: ActionParam,
        body: ServerEvaluateRequest,
        response: { 200: ok(Evaluation, "The new evaluation with its verdict"), ...errors },
      },
    },
    async (req) => {
      const env = envOf(req);
      const b = req.body;
      checkContacts(b);
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
