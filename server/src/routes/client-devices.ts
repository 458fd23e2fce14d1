// Client device operations for the browser SDK (SPEC.md 4): attach, detach, fingerprint, hash and legacy identify,
// with the public client id from an allowed origin (CORS preflight is answered by routes/client.ts for /v3/client/*).
import {
  ClientDeviceRequest,
  ClientDeviceResponse,
  ErrorBody,
  FingerprintResponse,
  HashResponse,
  IdentifyResponse,
} from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { authenticateClient } from "../auth.js";
import { badRequest } from "../errors.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Services } from "../services.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

const clientDeviceRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { devices } = services;

  async function input(req: FastifyRequest<{ Body: ClientDeviceRequest }>, reply: FastifyReply, action: string): Promise<EvaluationInput> {
    const env = await authenticateClient(services, req, reply, req.body.client_id);
    return {
      env,
      action,
      source: "client",
      ip: req.ip,
      userAgent: req.headers["user-agent"],
      headers: req.headers,
      user: req.body.user,
      signals: req.body.signals,
      at: Date.now(),
    };
  }

  app.post(
    "/v3/client/devices/attach",
    {
      schema: {
        tags: ["client"],
        summary: "Attach this browser's device to a user",
        body: ClientDeviceRequest,
        response: { 200: ClientDeviceResponse, ...errors },
      },
    },
    async (req, reply) => {
      const i = await input(req, reply, "attach");
      if (!i.user) throw badRequest("user is required to attach a device", "user");
      return devices.clientAttach({ ...i, user: i.user });
    },
  );

  app.post(
    "/v3/client/devices/detach",
    {
      schema: {
        tags: ["client"],
        summary: "Detach this browser's device from its user",
        body: ClientDeviceRequest,
        response: { 200: ClientDeviceResponse, ...errors },
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
        body: ClientDeviceRequest,
        response: { 200: FingerprintResponse, ...errors },
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
        body: ClientDeviceRequest,
        response: { 200: HashResponse, ...errors },
      },
    },
    async (req, reply) => devices.clientHash(await input(req, reply, "hash")),
  );

  app.post(
    "/v3/client/identify",
    {
      schema: {
        tags: ["client"],
        summary: "Legacy identification, completed by a backend (/v2/proj)",
        body: ClientDeviceRequest,
        response: { 200: IdentifyResponse, ...errors },
      },
    },
    async (req, reply) => devices.clientIdentify(await input(req, reply, "identify")),
  );
};

export default clientDeviceRoutes;
