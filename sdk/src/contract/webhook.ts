// Webhook endpoints, events and deliveries (SPEC.md 9).
import * as z from "zod/mini";
import { Page, Timestamp } from "./common.js";

export const WEBHOOK_EVENTS = [
  "challenge.initiated",
  "challenge.viewed",
  "challenge.pending",
  "challenge.skipped",
  "challenge.completed",
  /** An admin resolved the challenge (POST /v3/challenges/:id/override) instead of the user. */
  "challenge.overridden",
  "account_sharing.signal",
  "account_sharing.admin_notified",
  "device.detached",
  "user.converted",
] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
/** POST /v3/webhook-endpoints/:id/test: the event to send (else the endpoint's first). */
export const WebhookTestRequest = z.object({ event: z.optional(WebhookEvent) });
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEvent),
  description: z.optional(z.string()),
  enabled: z.boolean(),
  disabled_reason: z.optional(z.string()),
  /** Present only in the answer to the create call. */
  secret: z.optional(z.string()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;
export const WebhookEndpointList = z.object({ data: z.array(WebhookEndpoint) });

export const WebhookEndpointCreateRequest = z.object({
  url: z.url().check(z.maxLength(2048)),
  events: z.array(WebhookEvent).check(z.minLength(1)),
  description: z.optional(z.string().check(z.maxLength(500))),
});

export const WebhookDelivery = z.object({
  id: z.string(),
  event_id: z.string(),
  event: WebhookEvent,
  status: z.enum(["pending", "succeeded", "failed"]),
  attempts: z.number(),
  last_status_code: z.optional(z.number()),
  last_error: z.optional(z.string()),
  next_attempt_at: z.optional(Timestamp),
  delivered_at: z.optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
export const WebhookDeliveryPage = Page(WebhookDelivery);

export const WebhookPayload = z.object({
  id: z.string(),
  event: WebhookEvent,
  created_at: Timestamp,
  account: z.optional(z.string()),
  challenge: z.optional(z.unknown()),
  device: z.optional(z.unknown()),
  user: z.optional(z.unknown()),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** Path of one delivery of one endpoint. */
export const WebhookDeliveryParams = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  delivery: z.string().check(z.minLength(1), z.maxLength(200)),
});
