// Shared wire primitives: timestamps, ids, pagination, the error body (SPEC.md 5).
// Written with zod/mini so the browser bundles stay small; the server uses the same schemas.
import * as z from "zod/mini";

/** ISO 8601 date-time with milliseconds and Z, e.g. 2026-11-22T19:43:00.000Z. */
export const Timestamp = z.string();
export type Timestamp = z.infer<typeof Timestamp>;

export const Metadata = z.record(z.string(), z.unknown());
export type Metadata = z.infer<typeof Metadata>;

/** An id in a path: bounded so a huge path segment is a 400, not work. */
export const IdParam = z.object({ id: z.string().check(z.minLength(1), z.maxLength(200)) });

export const PageQuery = z.object({
  page: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(1_000_000)), 1),
  limit: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20),
});
export type PageQuery = z.infer<typeof PageQuery>;

export function Page<T extends z.ZodMiniType>(item: T) {
  return z.object({ data: z.array(item), total: z.number(), page: z.number(), limit: z.number() });
}

export const ERROR_CODES = [
  "invalid_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "already_consumed",
  "invalid_transition",
  "invalid_code",
  "code_expired",
  "too_many_attempts",
  "over_device_limit",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "request_timeout",
  "invalid_url",
  "invalid_user_token",
  "identity_verification_required",
  "delivery_failed",
  "internal",
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** GET /healthz and /readyz. */
export const Health = z.object({ status: z.literal("ok"), store: z.optional(z.string()) });

export const ErrorBody = z.object({
  error: z.object({
    status: z.number(),
    code: z.string(),
    message: z.string(),
    param: z.optional(z.string()),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
