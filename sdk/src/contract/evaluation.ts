// The evaluation (docs/server-api.md) and the requests that create one (docs/client-api.md, docs/server-api.md).
import * as z from "zod/mini";
import { ChecksSnapshot, RiskCategory } from "./checks.js";
import { Metadata, StoredMetadata, Timestamp } from "./common.js";
import { ChallengeType, Verdict } from "./policy.js";
import { Email, EmbeddedUser, Phone, UserId, UserToken } from "./user.js";

export const CHALLENGE_STATUSES = [
  "created",
  "presented",
  "code_sent",
  "verified",
  "completed",
  "failed",
  "skipped",
  "overridden",
] as const;
export const ChallengeStatus = z.enum(CHALLENGE_STATUSES);
export type ChallengeStatus = z.infer<typeof ChallengeStatus>;

export const EmbeddedChallenge = z.object({ id: z.string(), status: ChallengeStatus, type: z.optional(ChallengeType) });
export const EmbeddedPolicy = z.object({ id: z.string(), name: z.string(), action: z.object({ type: Verdict }) });
export const EmbeddedFingerprint = z.object({ id: z.string(), confidence: z.number().check(z.minimum(0), z.maximum(1)) });

export const Geolocation = z.object({
  city: z.optional(z.string()),
  region: z.optional(z.string()),
  country: z.optional(z.string()),
  country_code: z.optional(z.string()),
  ip: z.string(),
  latitude: z.optional(z.number()),
  longitude: z.optional(z.number()),
  asn: z.optional(z.number()),
  as_org: z.optional(z.string()),
  security: z.object({ vpn: z.boolean(), proxy: z.boolean(), tor: z.boolean(), hosting: z.boolean() }),
});
export type Geolocation = z.infer<typeof Geolocation>;

export const SEVERITIES = ["low", "medium", "high", "maximum"] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

export const Risk = z.object({
  id: z.string(),
  definition: z.string(),
  name: RiskCategory,
  severity: Severity,
  score: z.number(),
  indicators: z.array(z.string()),
});
export type Risk = z.infer<typeof Risk>;

export const Evaluation = z.object({
  id: z.string(),
  action: z.string(),
  verdict: Verdict,
  reasons: z.array(z.string()),
  redirect: z.optional(z.string()),
  user: z.optional(EmbeddedUser),
  challenge: z.optional(EmbeddedChallenge),
  policy: z.optional(EmbeddedPolicy),
  fingerprint: z.optional(EmbeddedFingerprint),
  geolocation: z.optional(Geolocation),
  device: z.optional(z.string()),
  access: z.optional(z.string()),
  risks: z.optional(z.array(Risk)),
  metadata: z.optional(StoredMetadata),
  checks: z.optional(ChecksSnapshot),
  consumed: z.optional(z.boolean()),
  consumed_at: z.optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Evaluation = z.infer<typeof Evaluation>;

/** Action names: login, signup, access or a custom action (letters, digits, _ . : -). */
export const ActionName = z.string().check(z.regex(/^[a-z0-9][a-z0-9_.:-]{0,63}$/i, "action must be 1-64 letters, digits, _ . : -"));
export const ActionParam = z.object({ action: ActionName });

/** FingerprintJS components as the library produces them; only `value` is sent (docs/client-api.md). */
export const Components = z.record(
  z.string().check(z.maxLength(64)),
  z.object({ value: z.optional(z.unknown()), error: z.optional(z.unknown()) }),
);
export type Components = z.infer<typeof Components>;

export const Automation = z.object({
  webdriver: z.optional(z.boolean()),
  headless: z.optional(z.boolean()),
  bot: z.optional(z.boolean()),
  bot_kind: z.optional(z.string().check(z.maxLength(64))),
  markers: z.optional(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(32))),
});
export type Automation = z.infer<typeof Automation>;

/** A window or screen side in CSS pixels: 0 is a real (headless) value; 100,000 is beyond any display. */
const Pixels = z.optional(z.int().check(z.minimum(0), z.maximum(100_000)));

/** The window and screen sizes (docs/detection.md): what a headless browser gives away. Optional: older SDKs send none. */
export const WindowMetrics = z.object({
  outer_width: Pixels,
  outer_height: Pixels,
  inner_width: Pixels,
  inner_height: Pixels,
  screen_width: Pixels,
  screen_height: Pixels,
});
export type WindowMetrics = z.infer<typeof WindowMetrics>;

export const Signals = z.object({
  components: z._default(Components, {}),
  visitor_token: z.optional(z.string().check(z.minLength(8), z.maxLength(128))),
  automation: z.optional(Automation),
  url: z.optional(z.string().check(z.maxLength(4096))),
  timezone: z.optional(z.string().check(z.maxLength(64))),
  consent: z.optional(z.enum(["full", "security"])),
  window: z.optional(WindowMetrics),
});
export type Signals = z.infer<typeof Signals>;

const userFields = {
  user: z.optional(UserId),
  email: z.optional(Email),
  phone: z.optional(Phone),
  metadata: z.optional(Metadata),
};

export const ClientEvaluateRequest = z.object({
  client_id: z.string().check(z.minLength(1), z.maxLength(100)),
  ...userFields,
  user_token: z.optional(UserToken),
  signals: z._default(Signals, { components: {} }),
});
export type ClientEvaluateRequest = z.infer<typeof ClientEvaluateRequest>;

export const ClientEvaluateResponse = z.object({
  evaluation_id: z.string(),
  redirect: z.optional(z.string()),
  logout: z.optional(z.boolean()),
});
export type ClientEvaluateResponse = z.infer<typeof ClientEvaluateResponse>;

export const Content = z.object({
  text: z.optional(z.string().check(z.maxLength(100_000))),
  title: z.optional(z.string().check(z.maxLength(1000))),
  links: z.optional(z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(200))),
});
export type Content = z.infer<typeof Content>;

export const ServerEvaluateRequest = z.object({
  ...userFields,
  ip: z.optional(z.union([z.ipv4(), z.ipv6()])),
  user_agent: z.optional(z.string().check(z.maxLength(2048))),
  /** A client evaluation whose device and fingerprint this backend evaluation reuses. */
  evaluation: z.optional(z.string().check(z.maxLength(200))),
  fingerprint: z.optional(z.string().check(z.maxLength(200))),
  content: z.optional(Content),
});
export type ServerEvaluateRequest = z.infer<typeof ServerEvaluateRequest>;
