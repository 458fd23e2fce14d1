// What each request did, for its access-log line and the metrics (docs/operations.md): one line per request, and an
// evaluation's line names the evaluation and its verdict. Routes do not report anything: the pipeline's after-hook
// writes the evaluation into the request's notes (found through AsyncLocalStorage), and challenge outcomes are read
// from what the API answered.
import { AsyncLocalStorage } from "node:async_hooks";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { loggedPath } from "./log.js";
import type { Services } from "./services.js";

interface RequestNotes {
  evaluation?: { id: string; verdict: string; action: string; source: string };
}

declare module "fastify" {
  interface FastifyRequest {
    notes: RequestNotes;
  }
}

const current = new AsyncLocalStorage<RequestNotes>();

/** Requests logged only when they fail: probes and scrapes arrive every few seconds. */
const QUIET = new Set(["/healthz", "/readyz", "/metrics"]);

type ChallengeBody = { challenge?: { status?: string; delivery_status?: string }; error?: { code?: string } };

export function registerObservation(app: FastifyInstance, services: Services): void {
  const { metrics } = services;
  services.pipeline.observers.push((result, input) => {
    const notes = current.getStore();
    if (notes) notes.evaluation = { id: result.id, verdict: result.verdict, action: input.action, source: input.source };
  });

  app.decorateRequest("notes", null as unknown as RequestNotes);
  app.addHook("onRequest", (req, _reply, done) => {
    req.notes = {};
    done();
  });
  // Entered after the body is read (its chunks arrive in the socket's context, not the request's): the handler and
  // everything it awaits see the request's notes.
  app.addHook("preHandler", (req, _reply, done) => {
    current.run(req.notes, done);
  });

  // Challenge outcomes as the API answered them (the answer object, before serialisation; errors included).
  app.addHook("preSerialization", async (req: FastifyRequest, reply, payload: unknown) => {
    const route = req.routeOptions.url;
    if (!route?.startsWith("/v3/challenges/:id/")) return payload;
    const body = payload as ChallengeBody;
    const ok = reply.statusCode < 300;
    const error = body?.error?.code;
    if (route === "/v3/challenges/:id/send") {
      const channel = (req.body as { channel?: string } | undefined)?.channel === "text" ? "text" : "email";
      const outcome = ok ? (body.challenge?.delivery_status ?? "sent") : reply.statusCode === 502 ? "failed" : "refused";
      metrics.challengeSends.inc({ channel, outcome });
    } else if (route === "/v3/challenges/:id/verify") {
      const outcome = ok
        ? "verified"
        : error === "invalid_code" || error === "code_expired" || error === "too_many_attempts"
          ? error
          : "refused";
      metrics.challengeVerifications.inc({ outcome });
      if (outcome === "too_many_attempts") metrics.challengeOutcomes.inc({ outcome: "failed" });
    } else if (route === "/v3/challenges/:id/complete" && ok) {
      metrics.challengeOutcomes.inc({ outcome: body.challenge?.status === "skipped" ? "skipped" : "completed" });
    }
    return payload;
  });

  app.addHook("onResponse", async (req, reply) => {
    const ev = req.notes?.evaluation;
    if (ev && reply.statusCode < 300) {
      metrics.evaluations.inc({ action: metrics.actionLabel(ev.action), verdict: ev.verdict, source: ev.source });
      metrics.evaluationDuration.observe({ source: ev.source }, reply.elapsedTime / 1000);
    }
    if (reply.statusCode < 400 && QUIET.has(req.url.split("?")[0] as string)) return;
    // Query strings and some paths carry tokens: the path, credentials redacted (log.ts).
    req.log.info(
      {
        method: req.method,
        path: loggedPath(req.url, req.routeOptions.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(ev ? { evaluation: ev.id, verdict: ev.verdict } : {}),
      },
      "request",
    );
  });
}
