// The challenge (docs/challenges.md) and the requests of its operations (docs/server-api.md, docs/challenges.md).
import * as z from "zod/mini";
import { Page, Timestamp } from "./common.js";
import { Device } from "./device.js";
import { ChallengeStatus } from "./evaluation.js";
import { ChallengeType, Channel } from "./policy.js";
import { EmbeddedUser } from "./user.js";

export const DELIVERY_STATUSES = ["pending", "sent", "delivered", "failed", "bounced"] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const Challenge = z.object({
  id: z.string(),
  status: ChallengeStatus,
  type: z.optional(ChallengeType),
  challenge_mode: z.optional(z.literal("service_managed")),
  delivery_status: z.optional(DeliveryStatus),
  channels: z.optional(z.array(Channel)),
  reasons: z.optional(z.array(z.string())),
  actions: z.optional(z.array(z.string())),
  user: z.optional(EmbeddedUser),
  evaluation: z.optional(z.string()),
  origin_url: z.optional(z.string()),
  email_verified: z.optional(z.boolean()),
  phone_verified: z.optional(z.boolean()),
  verify_attempts: z.optional(z.number()),
  createdAt: Timestamp,
  updatedAt: z.optional(Timestamp),
});
export type Challenge = z.infer<typeof Challenge>;
export const ChallengePage = Page(Challenge);

/** What the hosted app needs beyond the challenge itself: masked contacts, limits, branding. */
export const ChallengeView = z.object({
  challenge: Challenge,
  available_channels: z.array(z.object({ channel: Channel, destination: z.string() })),
  required_channels: z.enum(["any", "all"]),
  allow_skip: z.boolean(),
  device_limit: z.optional(z.number()),
  attempts_left: z.number(),
  /** Why a failed challenge failed, for the app to say so. */
  failure_reason: z.optional(z.enum(["expired", "too_many_attempts", "overridden"])),
  /** Channels already verified in this challenge (with required_channels "all", the others remain). */
  verified_channels: z.array(Channel),
  /** For account sharing: how many devices are attached now. */
  attached_devices: z.optional(z.number()),
  delivery_error: z.optional(z.string()),
  resend_available_at: z.optional(Timestamp),
  /** When the code last sent stops working (CHALLENGE_CODE_TTL_MS after the send). */
  code_expires_at: z.optional(Timestamp),
  expires_at: z.optional(Timestamp),
  success_url: z.optional(z.string()),
  /** The customer's page the user came from (on an allowed origin), for a way back that does not finish the challenge. */
  back_url: z.optional(z.string()),
  signup_url: z.optional(z.string()),
  project: z.object({ name: z.string(), logo_url: z.optional(z.string()), color: z.optional(z.string()) }),
});
export type ChallengeView = z.infer<typeof ChallengeView>;

export const ChallengeListQuery = z.object({
  page: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(1_000_000)), 1),
  limit: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20),
  status: z.optional(ChallengeStatus),
  user: z.optional(z.string().check(z.maxLength(256))),
});
export type ChallengeListQuery = z.infer<typeof ChallengeListQuery>;

export const LANGUAGES = ["en", "fr", "es", "ar"] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;

export const SendCodeRequest = z.object({ channel: Channel, language: z.optional(Language) });
export type SendCodeRequest = z.infer<typeof SendCodeRequest>;

export const VerifyCodeRequest = z.object({ code: z.string().check(z.regex(/^\d{6}$/, "code must be 6 digits")) });
export type VerifyCodeRequest = z.infer<typeof VerifyCodeRequest>;

/** Log out one device (`device`), or every device of the account but the one the challenge was opened from (`others`). */
export const KickDeviceRequest = z.object({
  device: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  others: z.optional(z.literal(true)),
});
export type KickDeviceRequest = z.infer<typeof KickDeviceRequest>;

export const SignupChoiceResponse = z.object({ redirect: z.string() });

/** An admin resolves a pending challenge (secret key only); the reason goes into the challenge.overridden event. */
export const OverrideChallengeRequest = z.object({ reason: z.optional(z.string().check(z.minLength(1), z.maxLength(500))) });
export type OverrideChallengeRequest = z.infer<typeof OverrideChallengeRequest>;

export const ChallengeDevices = z.object({ data: z.array(Device) });

export const CompleteChallengeRequest = z.object({
  /** "skip" when the user chose to skip (only where the policy allows it). */
  outcome: z.optional(z.enum(["complete", "skip"])),
});

/**
 * What an SMS provider reports to the signed status-callback URL of one text send: Twilio's form field
 * `MessageStatus`, or `status` from a generic provider (delivered, undelivered, failed; other states change nothing).
 */
export const DeliveryReceipt = z.object({ status: z.optional(z.string()), MessageStatus: z.optional(z.string()) });

/** A code sent in development without SMTP_URL (or an SMS provider): GET /v3/dev/outbox, newest first. */
export const DevOutboxMessage = z.object({
  id: z.string(),
  challenge_id: z.string(),
  channel: Channel,
  recipient: z.string(),
  subject: z.string(),
  body: z.string(),
  /** The one-time code the message carries. */
  code: z.optional(z.string()),
  createdAt: Timestamp,
  /**
   * @deprecated The same time as `createdAt`, under the name this object had before it followed the API's convention
   * (docs/server-api.md, "Dates"). Still sent for a while; read `createdAt`.
   */
  created_at: Timestamp,
});
export type DevOutboxMessage = z.infer<typeof DevOutboxMessage>;
export const DevOutbox = z.object({ data: z.array(DevOutboxMessage) });
