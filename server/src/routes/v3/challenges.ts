// Challenge operations (SPEC.md 5, 7) for a backend (secret key) and for the hosted app (the signed challenge
// token from the redirect URL, sent as X-Challenge-Token, which opens that one challenge only).
import {
  Challenge,
  ChallengeDevices,
  ChallengeListQuery,
  ChallengeView,
  CompleteChallengeRequest,
  ErrorBody,
  IdParam,
  KickDeviceRequest,
  Page,
  SendCodeRequest,
  SignupChoiceResponse,
  VerifyCodeRequest,
} from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf, requireSecret } from "../../auth.js";
import { ApiError, forbidden, rateLimited, unauthorized } from "../../errors.js";
import type { Services } from "../../services.js";

/** Operations per minute per challenge (per client IP: CHALLENGE_IP_RATE_LIMIT). A real user needs a handful. */
const CHALLENGE_WINDOW_MS = 60_000;
const CHALLENGE_OP_LIMIT = 30;

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody };

const challengeRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const challenges = services.challenges;
  const secretAuth = requireSecret(services);

  /** A challenge token authorises only the challenge named in the path; otherwise a secret key is required. */
  async function tokenOrSecret(req: FastifyRequest, reply: FastifyReply) {
    const token = req.headers["x-challenge-token"];
    if (typeof token !== "string") return secretAuth(req, reply);
    const payload = services.challengeTokens.verify(token);
    if (!payload) throw unauthorized("Invalid challenge link");
    if (payload.expired) throw new ApiError(401, "unauthorized", "This challenge link has expired");
    const id = (req.params as { id?: string }).id;
    if (!id || id !== payload.c) throw forbidden("This challenge link is for another challenge");
    const env = await services.repos.projects.environmentById(payload.e);
    if (!env) throw unauthorized("Invalid challenge link");
    req.environment = env;
  }

  // Challenge operations that act (send, verify, kick…) are limited per client IP and per challenge, counted by the
  // shared limiter so every instance agrees; code resends and wrong codes have their own caps in the service.
  app.addHook("preHandler", async (req) => {
    if (req.method !== "POST") return;
    const id = (req.params as { id?: string }).id ?? "";
    const results = await services.rateLimiter.hitMany([
      { key: `challenge-ip:${req.ip}`, limit: services.config.CHALLENGE_IP_RATE_LIMIT, windowMs: CHALLENGE_WINDOW_MS },
      { key: `challenge-op:${id}`, limit: CHALLENGE_OP_LIMIT, windowMs: CHALLENGE_WINDOW_MS },
    ]);
    const wait = Math.max(0, ...results.filter((r) => !r.allowed).map((r) => r.retryAfterMs));
    if (wait > 0) throw rateLimited(wait / 1000, "Too many challenge operations: slow down");
  });

  app.get(
    "/v3/challenges",
    {
      onRequest: secretAuth,
      schema: {
        tags: ["challenges"],
        summary: "List all challenges, newest first",
        querystring: ChallengeListQuery,
        response: { 200: Page(Challenge), ...errors },
      },
    },
    async (req) => challenges.list(envOf(req), req.query),
  );

  const byId = { onRequest: tokenOrSecret };

  app.get(
    "/v3/challenges/:id",
    {
      ...byId,
      schema: { tags: ["challenges"], summary: "Retrieve a challenge", params: IdParam, response: { 200: Challenge, ...errors } },
    },
    async (req) => challenges.get(envOf(req), req.params.id),
  );
  app.get(
    "/v3/challenges/:id/view",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "What the hosted page shows for a challenge",
        params: IdParam,
        response: { 200: ChallengeView, ...errors },
      },
    },
    async (req) => challenges.view(envOf(req), req.params.id),
  );
  app.post(
    "/v3/challenges/:id/open",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Open a challenge (created → presented)",
        params: IdParam,
        response: { 200: ChallengeView, ...errors },
      },
    },
    async (req) => challenges.open(envOf(req), req.params.id),
  );
  app.post(
    "/v3/challenges/:id/send",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Send a challenge code",
        params: IdParam,
        body: SendCodeRequest,
        response: { 200: ChallengeView, 502: ErrorBody, ...errors },
      },
    },
    async (req) => challenges.send(envOf(req), req.params.id, req.body.channel, req.body.language),
  );
  app.post(
    "/v3/challenges/:id/verify",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Verify a challenge code",
        params: IdParam,
        body: VerifyCodeRequest,
        response: { 200: ChallengeView, ...errors },
      },
    },
    async (req) => challenges.verify(envOf(req), req.params.id, req.body.code),
  );
  app.post(
    "/v3/challenges/:id/complete",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Complete (or skip) a challenge",
        params: IdParam,
        body: CompleteChallengeRequest,
        response: { 200: ChallengeView, ...errors },
      },
    },
    async (req) => challenges.complete(envOf(req), req.params.id, req.body?.outcome ?? "complete"),
  );
  app.get(
    "/v3/challenges/:id/devices",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Retrieve challenge devices",
        params: IdParam,
        response: { 200: ChallengeDevices, ...errors },
      },
    },
    async (req) => challenges.devices(envOf(req), req.params.id),
  );
  app.post(
    "/v3/challenges/:id/kick",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Kick a challenge device",
        params: IdParam,
        body: KickDeviceRequest,
        response: { 200: ChallengeDevices, ...errors },
      },
    },
    async (req) => challenges.kick(envOf(req), req.params.id, req.body.device),
  );
  app.post(
    "/v3/challenges/:id/signup",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Choose to create one's own account (account sharing)",
        params: IdParam,
        response: { 200: SignupChoiceResponse, ...errors },
      },
    },
    async (req) => challenges.chooseSignup(envOf(req), req.params.id),
  );

  if (services.config.isDev) {
    app.get(
      "/v3/dev/outbox",
      { onRequest: secretAuth, schema: { tags: ["development"], summary: "Codes sent in development (no SMTP_URL)" } },
      async (req) => ({
        data: await challenges.outbox(envOf(req)),
      }),
    );
  }
};

export default challengeRoutes;
