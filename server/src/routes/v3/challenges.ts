// Challenge operations (docs/server-api.md, docs/challenges.md) for a backend (secret key) and for the hosted app (the signed challenge
// token from the redirect URL, sent as X-Challenge-Token, which opens that one challenge only).
import {
  Challenge,
  ChallengeDevices,
  ChallengeListQuery,
  ChallengePage,
  ChallengeView,
  CompleteChallengeRequest,
  DevOutbox,
  ErrorBody,
  IdParam,
  KickDeviceRequest,
  OverrideChallengeRequest,
  SendCodeRequest,
  SignupChoiceResponse,
  VerifyCodeRequest,
} from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf, requireSecret } from "../../auth.js";
import { maskUserContacts } from "../../challenges/codes.js";
import { ApiError, badRequest, forbidden, rateLimited, unauthorized } from "../../errors.js";
import { perIpKey } from "../../geo/ip.js";
import type { Services } from "../../services.js";
import { ok, SECURITY } from "../describe.js";

/** Operations per minute per challenge (per client IP: CHALLENGE_IP_RATE_LIMIT). A real user needs a handful. */
const CHALLENGE_WINDOW_MS = 60_000;
const CHALLENGE_OP_LIMIT = 30;

/** The request is authorised by the hosted app's challenge link rather than a secret key (see tokenOrSecret). */
const viaLink = (req: FastifyRequest) => typeof req.headers["x-challenge-token"] === "string";

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
    const env = await services.environments.byId(payload.e);
    if (!env) throw unauthorized("Invalid challenge link");
    req.environment = env;
  }

  // A challenge link reads masked contacts only (docs/security.md); a secret key reads them whole.
  app.addHook("preSerialization", async (req, _reply, payload) => (viaLink(req) ? maskUserContacts(payload) : payload));

  // Challenge operations that act (send, verify, kick…) are limited per client IP (IPv6 by /64) and per challenge, counted by the
  // shared limiter so every instance agrees; code resends and wrong codes have their own caps in the service.
  app.addHook("preHandler", async (req) => {
    if (req.method !== "POST") return;
    const id = (req.params as { id?: string }).id ?? "";
    const results = await services.rateLimiter.hitMany([
      { key: `challenge-ip:${perIpKey(req.ip)}`, limit: services.config.CHALLENGE_IP_RATE_LIMIT, windowMs: CHALLENGE_WINDOW_MS },
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
        description: "The environment's challenges, filtered by `status` and by your `user` id, newest first. Paginated.",
        security: SECURITY.secretKey,
        querystring: ChallengeListQuery,
        response: { 200: ok(ChallengePage, "A page of challenges"), ...errors },
      },
    },
    async (req) => challenges.list(envOf(req), req.query),
  );

  const byId = { onRequest: tokenOrSecret };

  app.get(
    "/v3/challenges/:id",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Retrieve a challenge",
        description:
          "The challenge's status, type, channels, delivery status and attempts. With the challenge link's token the user's email and phone are masked; a secret key reads them whole.",
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        response: { 200: ok(Challenge, "The challenge"), ...errors },
      },
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
        description:
          "The challenge with what the hosted page needs: the masked destinations, attempts left, resend time, code expiry, device limit, project branding and the allowed return and back URLs.",
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        response: { 200: ok(ChallengeView, "The challenge as the page shows it"), ...errors },
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
        description:
          "The hosted page opened the link: created → presented, once (`challenge.viewed`). A later open (a reload of the page) changes nothing and answers the view as it is, whatever the status: it is never a 409. Takes no body.",
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        response: { 200: ok(ChallengeView, "The challenge, presented"), ...errors },
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
        description:
          "Sends a new 6-digit code to the user's stored email or phone (never to one the browser named), in the page's language: → code_sent (`challenge.pending`). A text goes only to a country of the environment's `sms_countries` setting (400 naming `channel` otherwise). Limited: a cooldown between sends, 5 per challenge; across challenges per recipient and per user for the browser and network that raised the challenge, per client IP (through the challenge link) and per project (429 with Retry-After). A delivery the transport refused answers 502 delivery_failed and spends none of these.",
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        body: SendCodeRequest,
        response: { 200: ok(ChallengeView, "The code is on its way (`delivery_status` says how far)"), 502: ErrorBody, ...errors },
      },
    },
    async (req) => challenges.send(envOf(req), req.params.id, req.body.channel, req.body.language, viaLink(req) ? req.ip : undefined),
  );
  app.post(
    "/v3/challenges/:id/verify",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Verify a challenge code",
        description:
          "The right code (compared in constant time, within its lifetime): → verified. A wrong one answers 400 invalid_code with the attempts left; the 5th fails the challenge (409 too_many_attempts); wrong codes are also counted per user across challenges, for the browser and network that raised the challenge (429).",
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        body: VerifyCodeRequest,
        response: { 200: ok(ChallengeView, "The challenge, verified"), ...errors },
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
        description:
          'verified → completed (`challenge.completed`): the challenged device joins the account. For account sharing only once the devices are within the limit (409 over_device_limit). `{ "outcome": "skip" }` skips where the policy allows it. No body means complete.',
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        // docs/server-api.md gives complete no body: none (Fastify's null), an empty one and {} all complete.
        body: z.nullish(CompleteChallengeRequest),
        response: { 200: ok(ChallengeView, "The challenge, completed or skipped"), ...errors },
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
        description:
          "The devices counted against the account's limit: those signed in and the challenged one (`current`), exactly what complete counts. With the challenge link, only once a code is verified (403 before).",
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        response: { 200: ok(ChallengeDevices, "The counted devices"), ...errors },
      },
    },
    async (req) => challenges.devices(envOf(req), req.params.id, viaLink(req) ? "link" : "secret"),
  );
  app.post(
    "/v3/challenges/:id/kick",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Kick a challenge device",
        description:
          'Account sharing: the verified owner logs one of the account\'s other devices out (`{ "device": "dev_…" }`), or all of them but the one the challenge was opened from (`{ "others": true }`, "Log out all other devices"): each `device.detached`, its SDK calls `on_logout`. Answers the devices still counted.',
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        body: KickDeviceRequest,
        response: { 200: ok(ChallengeDevices, "The devices still counted"), ...errors },
      },
    },
    async (req) => {
      const { device, others } = req.body;
      if (others && device) throw badRequest("Send either device (one device) or others: true (every other device), not both", "device");
      if (others) return challenges.kickOthers(envOf(req), req.params.id);
      if (!device) throw badRequest("device is required: the id of the device to log out (or others: true for every other one)", "device");
      return challenges.kick(envOf(req), req.params.id, device);
    },
  );
  app.post(
    "/v3/challenges/:id/signup",
    {
      ...byId,
      schema: {
        tags: ["challenges"],
        summary: "Choose to create one's own account (account sharing)",
        description:
          'A sharer chooses "Create my own account": remembered, so that a later signup from this device emits `user.converted`; answers the policy\'s sign-up page. Takes no body.',
        security: SECURITY.secretKeyOrChallengeToken,
        params: IdParam,
        response: { 200: ok(SignupChoiceResponse, "Where to sign up"), ...errors },
      },
    },
    async (req) => challenges.chooseSignup(envOf(req), req.params.id),
  );

  app.post(
    "/v3/challenges/:id/override",
    {
      // An admin's decision: a secret key only, never the challenge link the user holds.
      onRequest: secretAuth,
      schema: {
        tags: ["challenges"],
        summary: "Override a challenge (an admin resolves it instead of the user)",
        description:
          "Your admin or support verified the user another way: a pending challenge → overridden, the challenged device joins the account as on completion, and `challenge.overridden` carries the `reason`. A secret key only (the challenge link cannot). The evaluation is unchanged: your backend accepts `completed` only, so the user signs in again, now from a known device.",
        security: SECURITY.secretKey,
        params: IdParam,
        body: z.nullish(OverrideChallengeRequest),
        response: { 200: ok(Challenge, "The challenge, overridden"), ...errors },
      },
    },
    async (req) => challenges.override(envOf(req), req.params.id, req.body?.reason),
  );

  if (services.config.isDev) {
    /** A missing or wrong key here says what the outbox needs and where else the codes are. */
    const outboxAuth = async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        await secretAuth(req, reply);
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 401)) throw e;
        throw unauthorized(
          `${e.message}. The dev outbox answers with the secret key of the environment whose codes you want ("Authorization: Bearer sk_test_…"); in a browser, open /demo/outbox; the server log shows each code too`,
        );
      }
    };
    app.get(
      "/v3/dev/outbox",
      {
        onRequest: outboxAuth,
        schema: {
          tags: ["development"],
          summary: "Codes sent in development (no SMTP_URL)",
          description:
            "Development servers without SMTP_URL (or an SMS provider) keep each code here instead of sending it: newest first, the code as a field, for your end-to-end tests. The page /demo/outbox shows the same in a browser.",
          security: SECURITY.secretKey,
          response: { 200: ok(DevOutbox, "The environment's latest codes"), ...errors },
        },
      },
      async (req) => ({ data: await challenges.outbox(envOf(req)) }),
    );
  }
};

export default challengeRoutes;
