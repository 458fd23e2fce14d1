// The arguments the browser SDK accepts (docs/sdk.md), validated up front so a bad argument rejects with an
// error that names it. The user fields reuse the wire contract's schemas; only SDK-side options live here.
import * as z from "zod/mini";
import { Metadata } from "../contract/common.js";
import { ActionName } from "../contract/evaluation.js";
import { Email, Phone, UserId, UserToken } from "../contract/user.js";

/**
 * How much the SDK may collect. `full` (default): every FingerprintJS source, the visitor token (localStorage
 * with a cookie fallback), automation markers and the page URL. `security`: only what login security needs when
 * the user has not consented to more — see `collectComponents` for the sources kept.
 */
export const Consent = z.enum(["full", "security"]);
export type Consent = z.infer<typeof Consent>;

export const TesseraOptions = z.object({
  clientId: z.string().check(z.minLength(1), z.maxLength(100)),
  // A plain pattern rather than z.url(): the URL parser check costs bundle size for no extra safety here.
  baseUrl: z.optional(z.string().check(z.regex(/^https?:\/\/[^\s/?#]+/, "baseUrl must be an http(s) URL"))),
  // Checked by hand in the constructor: z.custom would cost bundle size for one typeof.
  on_logout: z.optional(z.unknown()),
  consent: z.optional(Consent),
  /** Milliseconds per request attempt. */
  timeout: z.optional(z.number().check(z.minimum(100), z.maximum(120_000))),
  /** Extra attempts after a network error or a 5xx. */
  retries: z.optional(z.number().check(z.minimum(0), z.maximum(5))),
  /**
   * Ask the server every `interval` ms (default 30 s) whether this device was logged out (kicked), so that
   * `on_logout` runs within a minute rather than at the next evaluation. `true` for the default interval.
   */
  // Checked by hand in the constructor (heartbeatMs), like on_logout: a zod union costs bundle size for two shapes.
  heartbeat: z.optional(z.unknown()),
});
export type TesseraOptions = Omit<z.infer<typeof TesseraOptions>, "on_logout" | "heartbeat"> & {
  on_logout?: () => void;
  heartbeat?: boolean | { interval?: number };
};

const EvaluateFields = z.object({
  user: z.optional(UserId),
  /** The backend's signature of `user` (identity verification; docs/security.md). */
  user_token: z.optional(UserToken),
  email: z.optional(Email),
  phone: z.optional(Phone),
  metadata: z.optional(Metadata),
  /** `access` only: navigate to the challenge by itself (default true). */
  auto_challenge: z.optional(z.boolean()),
  /**
   * Where the hosted challenge sends the browser back when the policy names no success_url (default: this page). It
   * must be on one of the environment's allowed origins, like any return address, or the challenge keeps none.
   */
  return_url: z.optional(z.string().check(z.maxLength(4096), z.regex(/^https?:\/\/[^\s/?#]+/, "return_url must be an http(s) URL"))),
});
export const EvaluateOptions = z.optional(EvaluateFields);
export type EvaluateOptions = z.infer<typeof EvaluateOptions>;

const DeviceFields = z.object({ user: z.optional(UserId), user_token: z.optional(UserToken) });
export const DeviceOptions = z.optional(DeviceFields);
export type DeviceOptions = z.infer<typeof DeviceOptions>;

/** The option names each call knows: any other is refused (UnknownOptionError) rather than silently dropped. */
export const KNOWN = {
  options: Object.keys(TesseraOptions.shape),
  evaluate: Object.keys(EvaluateFields.shape),
  device: Object.keys(DeviceFields.shape),
} as const;

export { ActionName };
