// Webhook endpoints, events and deliveries (docs/webhooks.md).
import * as z from "zod/mini";
import { Challenge } from "./challenge.js";
import { Page, StoredMetadata, Timestamp } from "./common.js";
import { Device } from "./device.js";

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
/** GET /v3/webhook-endpoints: the endpoints without their secrets (a secret on a listed row is stripped, never sent). */
export const WebhookEndpointList = z.object({ data: z.array(z.omit(WebhookEndpoint, { secret: true })) });

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

/** The user in an event (`account_sharing.*`, `user.converted`): the service's view of the account. */
export const WebhookUser = z.object({
  service_id: z.string(),
  /** The customer's user id; absent for an account known by its email only. */
  id: z.optional(z.string()),
  email: z.optional(z.string()),
  phone: z.optional(z.string()),
  metadata: StoredMetadata,
  groups: z.array(z.string()),
  converted_at: z.optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** What every event carries: its id, name and time, the customer's account it is about, `test` on a test event. */
const eventBase = <E extends WebhookEvent>(event: E) => ({
  id: z.string(),
  event: z.literal(event),
  created_at: Timestamp,
  account: z.optional(z.string()),
  /** Set on an event sent by "Send a test event" (POST /v3/webhook-endpoints/:id/test): a sample object. */
  test: z.optional(z.literal(true)),
});
const challengeEvent = <E extends WebhookEvent>(event: E) => z.object({ ...eventBase(event), challenge: Challenge });

export const ChallengeInitiatedEvent = challengeEvent("challenge.initiated");
export const ChallengeViewedEvent = challengeEvent("challenge.viewed");
export const ChallengePendingEvent = challengeEvent("challenge.pending");
export const ChallengeSkippedEvent = challengeEvent("challenge.skipped");
export const ChallengeCompletedEvent = challengeEvent("challenge.completed");
export const ChallengeOverriddenEvent = z.object({
  ...eventBase("challenge.overridden"),
  challenge: Challenge,
  /** The admin's reason, when given. */
  reason: z.optional(z.string()),
});
export const AccountSharingSignalEvent = z.object({
  ...eventBase("account_sharing.signal"),
  user: WebhookUser,
  /** The device of the evaluation that raised the signal. */
  device: z.optional(Device),
});
export const AccountSharingAdminNotifiedEvent = z.object({
  ...eventBase("account_sharing.admin_notified"),
  user: WebhookUser,
  device: z.optional(Device),
  /** Where the environment's admin was emailed. */
  admin_email: z.string(),
});
export const DeviceDetachedEvent = z.object({ ...eventBase("device.detached"), device: Device });
export const UserConvertedEvent = z.object({
  ...eventBase("user.converted"),
  user: WebhookUser,
  /** The challenge whose sign-up the user chose. */
  challenge: z.optional(z.object({ id: z.string() })),
});

/** The payload of each event, by its name: what the webhook sender writes and what a receiver gets. */
export const WEBHOOK_PAYLOADS = {
  "challenge.initiated": ChallengeInitiatedEvent,
  "challenge.viewed": ChallengeViewedEvent,
  "challenge.pending": ChallengePendingEvent,
  "challenge.skipped": ChallengeSkippedEvent,
  "challenge.completed": ChallengeCompletedEvent,
  "challenge.overridden": ChallengeOverriddenEvent,
  "account_sharing.signal": AccountSharingSignalEvent,
  "account_sharing.admin_notified": AccountSharingAdminNotifiedEvent,
  "device.detached": DeviceDetachedEvent,
  "user.converted": UserConvertedEvent,
} as const satisfies Record<WebhookEvent, z.ZodMiniObject>;

/** A delivered webhook's body (signed with Standard Webhooks): one of the events, told apart by `event`. */
export const WebhookPayload = z.discriminatedUnion("event", [
  ChallengeInitiatedEvent,
  ChallengeViewedEvent,
  ChallengePendingEvent,
  ChallengeSkippedEvent,
  ChallengeCompletedEvent,
  ChallengeOverriddenEvent,
  AccountSharingSignalEvent,
  AccountSharingAdminNotifiedEvent,
  DeviceDetachedEvent,
  UserConvertedEvent,
]);
export type WebhookPayload = z.infer<typeof WebhookPayload>;
/** The payload of one event. */
export type WebhookPayloadOf<E extends WebhookEvent> = z.infer<(typeof WEBHOOK_PAYLOADS)[E]>;
/** What the sender gives for an event: the payload without the envelope it adds (id, event, created_at). */
export type WebhookEventData<E extends WebhookEvent> = Omit<z.input<(typeof WEBHOOK_PAYLOADS)[E]>, "id" | "event" | "created_at">;

/** Path of one delivery of one endpoint. */
export const WebhookDeliveryParams = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  delivery: z.string().check(z.minLength(1), z.maxLength(200)),
});
