// Client device operations for the browser SDK (docs/client-api.md): attach, detach, fingerprint, hash, legacy identify and the
// heartbeat,
// with the public client id from an allowed origin (CORS preflight is answered by routes/client.ts for /v3/client/*).
// docs/security.md: attach needs the backend's user_token for the user (a public client id must not link a browser to any
// account); detach acts on this browser's own device only, found by its exact visitor token.
import {
  ClientDeviceRequest,
  ClientDeviceResponse,
  ClientHeartbeatRequest,
  ClientHeartbeatResponse,
  ErrorBody,
  FingerprintResponse,
  HashResponse,
  HEARTBEATS_PER_MINUTE,
  IdentifyResponse,
} from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { authenticateClient } from "../auth.js";
import { badRequest, rateLimited } from "../errors.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Services } from "../services.js";
import { ok } from "./describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const clientDeviceRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { devices } = services;

  async function input(
    req: FastifyRequest<{ Body: ClientDeviceRequest }>,
    reply: FastifyReply,
    action: string,
    opts: { attach?: boolean } = {},
  ): Promise<EvaluationInput> {
    const env = await authenticateClient(services, req, reply, req.body.client_id);
    const identityVerified = services.identity.check(env, req.body, opts);
    return {
      env,
      action,
      source: "client",
      ip: req.ip,
      userAgent: req.headers["user-agent"],
      headers: req.headers,
      user: req.body.user,
      identityVerified,
      signals: req.body.signals,
      at: Date.now(),
    };
  }

  app.post(
    "/v3/client/devices/attach",
    {
      schema: {
        tags: ["client"],
        summary: "Attach this browser's device to a user (needs the backend's user_token for that user)",
        description:
          "`tessera.attach({ user, user_token })`: this browser's device joins the user's account. Always needs a valid `user_token` signed by your backend (403 identity_verification_required otherwise), so a public client id cannot link a browser to any account.",
        body: ClientDeviceRequest,
        response: { 200: ok(ClientDeviceResponse, "The device, attached"), ...errors },
      },
    },
    async (req, reply) => {
      const user = req.body.user;
      if (!user) throw badRequest("user is required to attach a device", "user");
      return devices.clientAttach({ ...(await input(req, reply, "attach", { attach: true })), user });
    },
  );

  app.post(
    "/v3/client/devices/detach",
    {
      schema: {
        tags: ["client"],
        summary: "Detach this browser's own device (found by its exact visitor token) from its user",
        description:
          "`tessera.detach()`, e.g. on logout: detaches the device holding this browser's own visitor token, never one found by a similar fingerprint.",
        body: ClientDeviceRequest,
        response: { 200: ok(ClientDeviceResponse, "The device, detached"), ...errors },
      },
    },
    async (req, reply) => devices.clientDetach(await input(req, reply, "detach")),
  );

  app.post(
    "/v3/client/fingerprint",
    {
      schema: {
        tags: ["client"],
        summary: "Fingerprint this browser (server-computed id and confidence)",
        description:
          "`tessera.getFingerprint()`: the server computes the fingerprint id from the components sent (it never trusts a hash from the client) and how confidently they match a known one.",
        body: ClientDeviceRequest,
        response: { 200: ok(FingerprintResponse, "The fingerprint id and the match's confidence (0–1)"), ...errors },
      },
    },
    async (req, reply) => devices.clientFingerprint(await input(req, reply, "fingerprint")),
  );

  app.post(
    "/v3/client/hash",
    {
      schema: {
        tags: ["client"],
        summary: "This browser's fingerprint hash now and at its previous sighting",
        description: "`tessera.getHash()`: `[current, last]`, the hash of exactly these components and the one the device had before.",
        body: ClientDeviceRequest,
        response: { 200: ok(HashResponse, "[current, last]"), ...errors },
      },
    },
    async (req, reply) => devices.clientHash(await input(req, reply, "hash")),
  );

  app.post(
    "/v3/client/heartbeat",
    {
      schema: {
        tags: ["client"],
        summary: "Ask whether this browser's device was logged out (the SDK's heartbeat)",
        description:
          "A light call the SDK makes every `heartbeat.interval` ms (30 s by default, 2 s at the fastest) when the `heartbeat` option is on: it names only the browser's visitor token, collects no signals, and answers `logout: true` once when the device was detached (kicked) since it last heard, so that the page logs the user out within a minute. Limited per visitor token (" +
          String(HEARTBEATS_PER_MINUTE) +
          " a minute: two windows beating every 2 s) besides the client API's limits.",
        body: ClientHeartbeatRequest,
        response: { 200: ok(ClientHeartbeatResponse, "Whether to log this browser's user out now"), 429: ErrorBody, ...errors },
      },
    },
    async (req, reply) => {
      const env = await authenticateClient(services, req, reply, req.body.client_id);
      const token = req.body.visitor_token;
      const budget = await services.rateLimiter.hit(`heartbeat:${env.id}:${token}`, HEARTBEATS_PER_MINUTE, 60_000);
      if (!budget.allowed) throw rateLimited(budget.retryAfterMs / 1000, "Too many heartbeats from this browser");
      return devices.heartbeat(env.id, token);
    },
  );

  app.post(
    "/v3/client/identify",
    {
      schema: {
        tags: ["client"],
        summary: "Legacy identification, completed by a backend (/v2/proj)",
        description:
          "`tessera.identify()`: an identification id for this browser's device, which your backend completes with POST /v2/proj/identification/:id/complete naming the account.",
        body: ClientDeviceRequest,
        response: { 200: ok(IdentifyResponse, "The identification id to complete"), ...errors },
      },
    },
    async (req, reply) => devices.clientIdentify(await input(req, reply, "identify")),
  );
};

export default clientDeviceRoutes;
