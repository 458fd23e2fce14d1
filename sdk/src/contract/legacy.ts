// Legacy /v2/proj envelopes (docs/server-api.md).
import * as z from "zod/mini";
import { boundedMetadata, MetadataString, Timestamp } from "./common.js";

export const AccessHistoryQuery = z.object({
  user: z.optional(z.string().check(z.maxLength(256))),
  device: z.optional(z.string().check(z.maxLength(200))),
  per: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(50)), 10),
  page: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(1_000_000)), 1),
});

export const AccessRecord = z.object({
  id: z.string(),
  device: z.string(),
  user: z.optional(z.string()),
  confidence: z.number(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type AccessRecord = z.infer<typeof AccessRecord>;

export const AccessHistoryPage = z.object({
  docs: z.array(AccessRecord),
  totalDocs: z.number(),
  limit: z.number(),
  totalPages: z.number(),
  page: z.number(),
  pagingCounter: z.number(),
  hasPrevPage: z.boolean(),
  hasNextPage: z.boolean(),
  prevPage: z.nullable(z.number()),
  nextPage: z.nullable(z.number()),
});

export const IdentificationCompleteRequest = z.object({ account: z.string().check(z.minLength(1), z.maxLength(256)) });
export const IdentificationCompleteResponse = z.object({
  access: z.string(),
  device: z.string(),
  new_device: z.boolean(),
  metadata_fields: z.record(z.string(), z.array(z.string())),
});

/** Lists of strings under the bounds of every `metadata` (common.ts); the device's metadata they merge into too. */
export const LegacyMetadataFields = boundedMetadata(z.array(MetadataString));
export const LegacyDeviceMetadataRequest = z.object({ metadata_fields: LegacyMetadataFields });

export const LegacyDeviceParam = z.object({ device: z.string().check(z.minLength(1), z.maxLength(200)) });
export const LegacySuccess = z.object({ success: z.literal(true) });
