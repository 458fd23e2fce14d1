// The user as embedded in evaluations and challenges (docs/server-api.md) and the user update body.
import * as z from "zod/mini";
import { Metadata } from "./common.js";

/** The customer application's own user id, as sent by the SDK or a backend. */
export const UserId = z.string().check(z.minLength(1), z.maxLength(256));
/** At most 254 characters, the longest a mail path carries; the server checks the rest (one dot-atom addr-spec). */
export const Email = z.string().check(z.maxLength(254));
/** International format with leading + (E.164: up to 15 digits). */
export const Phone = z.string().check(z.regex(/^\+[1-9]\d{6,14}$/, "phone must be in international format, e.g. +33612345678"));

/**
 * docs/security.md: base64url (no padding) HMAC-SHA256 of the user id under the environment's identity secret, computed by
 * the customer's backend (`userToken` of the backend client) and passed by the browser beside `user`.
 */
export const UserToken = z.string().check(z.minLength(1), z.maxLength(128));

/** Whether client calls naming a user need a valid user_token: never checked, checked when sent, or required. */
export const IDENTITY_VERIFICATION_MODES = ["off", "optional", "required"] as const;
export const IdentityVerificationMode = z.enum(IDENTITY_VERIFICATION_MODES);
export type IdentityVerificationMode = z.infer<typeof IdentityVerificationMode>;

export const EmbeddedUser = z.object({
  service_id: z.string(),
  /** The customer's user id; absent for an account known by its email only (an email-only sign-up; docs/identity.md). */
  id: z.optional(z.string()),
  email: z.optional(z.string()),
  phone: z.optional(z.string()),
});
export type EmbeddedUser = z.infer<typeof EmbeddedUser>;

const GroupId = z.string().check(z.minLength(1), z.maxLength(100));

/** A group the user belongs to (an organisation, a team, a household): its id in the customer's system. */
export const Group = z.object({
  id: GroupId,
  name: z.optional(z.string().check(z.maxLength(200))),
  metadata: z.optional(Metadata),
});
export type Group = z.infer<typeof Group>;

export const UserUpdateRequest = z.object({
  email: z.optional(z.nullable(Email)),
  phone: z.optional(z.nullable(Phone)),
  /** Merged into the stored metadata: the keys sent are set, a key sent as `null` is removed, the others stay. */
  metadata: z.optional(Metadata),
  /** The user's groups, replacing the stored ones: one group object, or an array of group objects or group ids. */
  groups: z.optional(z.union([Group, z.array(z.union([GroupId, Group])).check(z.maxLength(100))])),
});
export type UserUpdateRequest = z.infer<typeof UserUpdateRequest>;

export const UserErasure = z.object({
  user: z.string(),
  deleted: z.object({
    evaluations: z.number(),
    devices: z.number(),
    fingerprints: z.number(),
    challenges: z.number(),
    access_records: z.number(),
  }),
});
export type UserErasure = z.infer<typeof UserErasure>;
