// Shared wire primitives: timestamps, ids, pagination, the error body (docs/server-api.md).
// Written with zod/mini so the browser bundles stay small; the server uses the same schemas.
import * as z from "zod/mini";

/** ISO 8601 date-time with milliseconds and Z, e.g. 2026-11-22T19:43:00.000Z. */
export const Timestamp = z.string();
export type Timestamp = z.infer<typeof Timestamp>;

/**
 * The bounds of `metadata` on every call that sends it (docs/security.md "Bounded input"). It is kept with each
 * evaluation for the retention period, so one call stores a few labels, not a file: at most 50 keys of at most 40
 * characters, string values of at most 500 characters, 8 KB as JSON (UTF-8) in all.
 */
export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_STRING_LENGTH = 500;
export const METADATA_MAX_BYTES = 8 * 1024;

const MetadataKey = z.string().check(z.maxLength(METADATA_MAX_KEY_LENGTH));
export const MetadataString = z.string().check(z.maxLength(METADATA_MAX_STRING_LENGTH));

const SCALAR = `a string of at most ${METADATA_MAX_STRING_LENGTH} characters, a number, a boolean or null`;

/** Why a value that holds nothing else is refused, if it is: a string past the bound, or no scalar at all. */
function scalarProblem(v: unknown, nested: boolean): string | undefined {
  if (typeof v === "string")
    return v.length > METADATA_MAX_STRING_LENGTH ? `strings have at most ${METADATA_MAX_STRING_LENGTH} characters` : undefined;
  if (v === null || typeof v === "number" || typeof v === "boolean") return undefined;
  return nested ? `${SCALAR}: values nest one level at most` : `${SCALAR}, or one list or object of those`;
}

/**
 * A metadata value: a scalar, or one level of list or object of scalars (`roles: ["admin"]`, `address: { city }`);
 * nothing a label needs nests deeper. One check rather than zod unions, which cost the browser SDK 0.8 KB gzipped
 * of its 30 KB budget; each problem names its place (`metadata.address.city`).
 */
const MetadataValue = z.unknown().check(
  z.superRefine((v, ctx) => {
    const entries = Array.isArray(v) ? v.entries() : v !== null && typeof v === "object" ? Object.entries(v) : undefined;
    if (!entries) {
      const problem = scalarProblem(v, false);
      if (problem) ctx.addIssue({ code: "custom", message: problem, input: v });
      return;
    }
    for (const [k, inner] of entries) {
      const problem =
        typeof k === "string" && k.length > METADATA_MAX_KEY_LENGTH
          ? `keys have at most ${METADATA_MAX_KEY_LENGTH} characters`
          : scalarProblem(inner, true);
      if (problem) ctx.addIssue({ code: "custom", message: problem, input: inner, path: [k] });
    }
  }),
);

const utf8 = new TextEncoder();

/** The bounds of a whole metadata object, whatever its values: the key count, then the size as JSON. */
function metadataSize() {
  return z.superRefine((m: Record<string, unknown>, ctx) => {
    if (Object.keys(m).length > METADATA_MAX_KEYS) ctx.addIssue({ code: "custom", message: `at most ${METADATA_MAX_KEYS} keys`, input: m });
    else if (utf8.encode(JSON.stringify(m)).length > METADATA_MAX_BYTES)
      ctx.addIssue({ code: "custom", message: `at most ${METADATA_MAX_BYTES / 1024} KB as JSON`, input: m });
  });
}

/** A metadata object of `value`s under the bounds (legacy `metadata_fields` are lists of MetadataString). */
export function boundedMetadata<V extends z.ZodMiniType>(value: V) {
  return z.record(MetadataKey, value).check(metadataSize());
}

/** `metadata` as a call sends it: the SDK, the backend client and the server refuse the same beyond the bounds. */
export const Metadata = boundedMetadata(MetadataValue);
export type Metadata = z.infer<typeof Metadata>;

/** What the OpenAPI document says of Metadata (server/src/routes/docs.ts), beside the key length it shows itself. */
export const METADATA_DOC = {
  description: `Your own labels: at most ${METADATA_MAX_KEYS} keys of at most ${METADATA_MAX_KEY_LENGTH} characters; each value ${SCALAR}, or one list or object of those (one level); ${METADATA_MAX_BYTES / 1024} KB as JSON in all.`,
  maxProperties: METADATA_MAX_KEYS,
};

/** `metadata` as stored and answered: what was sent (before the bounds existed, calls could send more). */
export const StoredMetadata = z.record(z.string(), z.unknown());
export type StoredMetadata = z.infer<typeof StoredMetadata>;

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
