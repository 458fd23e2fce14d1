// Client API for the browser SDK (docs/client-api.md): evaluate with a public client id from an allowed origin.
import { ActionParam, ClientEvaluateRequest, ClientEvaluateResponse, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { authenticateClient } from "../auth.js";
import { checkContacts } from "../delivery/addresses.js";
import type { Services } from "../services.js";
import { ok } from "./describe.js";

export const CLIENT_CORS_HEADERS = {
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "600",
};

/**
 * onSend hook of the client API: a refusal (any 4xx or 5xx) is readable by the page that asked. Without CORS headers
 * the browser hides the answer from the page, which sees only "failed to fetch" (and the SDK retried it as a network
 * failure): a wrong client id or a page on an origin not allowed looked like an unreachable server, with the server's
 * own message lost. A refusal carries the error body only — nothing was done and nothing of the environment is in it —
 * so it may be shown to any origin; an answer with data is only ever given to an allowed origin, whose header
 * authenticateClient (auth.ts) set before any work.
 */
export async function corsOnRefusals(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const origin = req.headers.origin;
  if (origin && reply.statusCode >= 400 && !reply.hasHeader("access-control-allow-origin")) {
    reply.header("access-control-allow-origin", origin).header("access-control-expose-headers", "retry-after").header("vary", "Origin");
  }
  return payload;
}

const clientRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // Preflight: the client id is in the body, which a preflight does not carry, so the origin is checked on the
  // real request (authenticateClient) and a refused origin gets no CORS headers and no work done.
  app.options("/v3/client/*", { schema: { hide: true } }, async (req, reply) => {
    const origin = req.headers.origin;
    if (origin) reply.header("access-control-allow-origin", origin).header("vary", "Origin");
    return reply.headers(CLIENT_CORS_HEADERS).status(204).send();
  });

  app.post(
    "/v3/client/evaluate/:action",
    {
      schema: {
        tags: ["client"],
        summary: "Evaluate an action from the browser SDK",
        description:
          "What `tessera.evaluate.login()` (and signup, access, custom actions) sends: the public client id, the user fields and the signals the SDK collected. Answers the evaluation id (and the challenge link when one is needed) but never the verdict: your backend reads that with its secret. Everything here is written by whoever controls the browser.",
        params: ActionParam,
        body: ClientEvaluateRequest,
        response: {
          200: ok(ClientEvaluateResponse, "The evaluation's id; `redirect` when a challenge is needed; `logout` once for a kicked device"),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const env = await authenticateClient(services, req, reply, req.body.client_id);
      checkContacts(req.body);
      const identityVerified = services.identity.check(env, req.body);
      const { id, redirect, logout } = await services.pipeline.evaluate({
        env,
        action: req.params.action,
        source: "client",
        ip: req.ip,
        userAgent: req.headers["user-agent"],
        headers: req.headers,
        user: req.body.user,
        identityVerified,
        email: req.body.email,
        phone: req.body.phone,
        metadata: req.body.metadata,
        signals: req.body.signals,
        at: Date.now(),
      });
      return {
        evaluation_id: id,
        ...(redirect ? { redirect } : {}),
        ...(logout ? { logout: true } : {}),
      };
    },
  );
};

export default clientRoutes;
