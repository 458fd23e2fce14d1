// The device object (docs/server-api.md) and the client device operations (docs/client-api.md).
import * as z from "zod/mini";
import { Metadata, StoredMetadata, Timestamp } from "./common.js";
import { Signals } from "./evaluation.js";
import { UserId, UserToken } from "./user.js";

export const DEVICE_TYPES = ["computer", "tablet", "mobile"] as const;
export const DeviceType = z.enum(DEVICE_TYPES);
export type DeviceType = z.infer<typeof DeviceType>;

export const DeviceInfo = z.object({
  browser: z.optional(z.string()),
  browser_version: z.optional(z.string()),
  engine: z.optional(z.string()),
  os: z.optional(z.string()),
  os_version: z.optional(z.string()),
  device_vendor: z.optional(z.string()),
  device_model: z.optional(z.string()),
  device_type: z.optional(z.string()),
});
export type DeviceInfo = z.infer<typeof DeviceInfo>;

/** Where an IP address is, from the offline databases: what tells two otherwise alike devices apart. */
export const DevicePlace = z.object({
  city: z.optional(z.string()),
  region: z.optional(z.string()),
  country: z.optional(z.string()),
  country_code: z.optional(z.string()),
});
export type DevicePlace = z.infer<typeof DevicePlace>;

export const Device = z.object({
  id: z.string(),
  user: z.optional(z.string()),
  status: z.enum(["attached", "detached"]),
  type: DeviceType,
  info: DeviceInfo,
  metadata: StoredMetadata,
  attached_at: z.optional(Timestamp),
  detached_at: z.optional(Timestamp),
  last_seen_at: z.optional(Timestamp),
  /** The IP address the device was last seen from. */
  last_ip: z.optional(z.string()),
  /** Where that address is, when the offline databases know (device lists: the user's, a challenge's). */
  last_location: z.optional(DevicePlace),
  actively_connected: z.boolean(),
  /** Set by the challenge devices list: this is the browser the challenge was opened from. */
  current: z.optional(z.boolean()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Device = z.infer<typeof Device>;

export const DeviceMetadataRequest = z.object({ metadata: Metadata });

/** Backend attach (secret key): the device joins this user's account. */
export const DeviceAttachRequest = z.object({ user: UserId });
export type DeviceAttachRequest = z.infer<typeof DeviceAttachRequest>;

/** Client operations carry the client id and the same signals as an evaluation. */
export const ClientDeviceRequest = z.object({
  client_id: z.string().check(z.minLength(1), z.maxLength(100)),
  user: z.optional(UserId),
  user_token: z.optional(UserToken),
  signals: z._default(Signals, { components: {} }),
});
export type ClientDeviceRequest = z.infer<typeof ClientDeviceRequest>;

export const ClientDeviceResponse = z.object({ device: z.string(), status: z.enum(["attached", "detached"]) });
export const FingerprintResponse = z.object({ fingerprint_id: z.nullable(z.string()), confidence: z.number() });
/** [current, last]: this browser's fingerprint hash now and the one it had before. */
export const HashResponse = z.tuple([z.nullable(z.string()), z.nullable(z.string())]);
export const IdentifyResponse = z.object({ identification_id: z.string() });

export const DeviceList = z.array(Device);

/**
 * The fastest heartbeat the SDK accepts (`heartbeat: { interval }`, ms): a kicked device hears of it within two seconds,
 * and a faster beat would be load, not news.
 */
export const HEARTBEAT_MIN_INTERVAL_MS = 2_000;
/**
 * Heartbeats per minute per visitor token that the server answers: twice what one window beating at the fastest
 * interval sends (30), so that two open windows of one browser (a hidden tab skips its beats) and timers firing a
 * little early in a sliding window all pass.
 */
export const HEARTBEATS_PER_MINUTE = 2 * (60_000 / HEARTBEAT_MIN_INTERVAL_MS);

/**
 * The SDK's heartbeat (`heartbeat` option): a light call naming only this browser's visitor token, so that a device
 * kicked from the account learns it within a minute instead of at its next evaluation.
 */
export const ClientHeartbeatRequest = z.object({
  client_id: z.string().check(z.minLength(1), z.maxLength(100)),
  visitor_token: z.string().check(z.minLength(8), z.maxLength(128)),
});
export type ClientHeartbeatRequest = z.infer<typeof ClientHeartbeatRequest>;
/** `logout: true` once, when this browser's device was detached (kicked) since it last heard. */
export const ClientHeartbeatResponse = z.object({ logout: z.boolean() });
