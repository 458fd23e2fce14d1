// Server API for webhook endpoints (docs/server-api.md, docs/webhooks.md): register (secret shown once), list, delete, deliveries, re-send.
import {
  ErrorBody,
  IdParam,
  PageQuery,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEndpointCreateRequest,
  WebhookEndpointList,
  WebhookTestRequest,
} from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const webhookRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const endpoints = services.webhookEndpoints;

  app.get(
    "/v3/webhook-endpoints",
    {
      schema: {
        tags: ["webhooks"],
        summary: "List webhook endpoints",
        description:
          "The environment's endpoints (newest first) with their events and state; a disabled one says why. Secrets are never answered here.",
        response: { 200: ok(WebhookEndpointList, "The endpoints"), ...errors },
      },
    },
    async (req) => ({ data: await endpoints.list(envOf(req)) }),
  );

  app.post(
    "/v3/webhook-endpoints",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Register a webhook endpoint",
        description:
          "Answers the endpoint with its `whsec_…` signing secret, shown only in this answer. URLs must use https; a development environment may use http to localhost.",
        body: WebhookEndpointCreateRequest,
        response: { 201: ok(WebhookEndpoint, "The endpoint with its signing secret (shown once)"), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(await endpoints.create(envOf(req), req.body)),
  );

  app.delete(
    "/v3/webhook-endpoints/:id",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Delete a webhook endpoint and its deliveries",
        description: "Stops sending to the endpoint at once; its pending deliveries are dropped.",
        params: IdParam,
        response: { 204: ok(z.null(), "Deleted"), ...errors },
      },
    },
    async (req, reply) => {
      await endpoints.remove(envOf(req), req.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    "/v3/webhook-endpoints/:id/deliveries",
    {
      schema: {
        tags: ["webhooks"],
        summary: "List an endpoint's deliveries (attempts and status), newest first",
        description:
          "Each event sent to the endpoint: pending (with its next attempt), succeeded or failed, with the attempts, the last HTTP status and a generic error class. Paginated.",
        params: IdParam,
        querystring: PageQuery,
        response: { 200: ok(WebhookDeliveryPage, "A page of deliveries"), ...errors },
      },
    },
    async (req) => endpoints.deliveries(envOf(req), req.params.id, req.query.page, req.query.limit),
  );

  app.post(
    "/v3/webhook-endpoints/:id/test",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Send a test event to this endpoint",
        description:
          "One of the endpoint's events (the first it subscribes to, or `event`) with `test: true` and a sample object; delivered, signed and retried like any other.",
        params: IdParam,
        body: z.nullish(WebhookTestRequest),
        response: { 200: ok(WebhookDelivery, "The test delivery, queued"), ...errors },
      },
    },
    async (req) => endpoints.sendTest(envOf(req), req.params.id, req.body?.event),
  );

  app.post(
    "/v3/webhook-endpoints/:id/deliveries/:delivery/retry",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Re-send a failed delivery",
        description:
          "Schedules a fresh round of attempts now and re-enables the endpoint if it was disabled; a delivery that is not failed answers 409.",
        params: WebhookDeliveryParams,
        response: { 200: ok(WebhookDelivery, "The delivery, pending again"), 409: ErrorBody, ...errors },
      },
    },
    async (req) => endpoints.retry(envOf(req), req.params.id, req.params.delivery),
  );
};

export default webhookRoutes;
