// Legacy server API (`/v2/proj`, secret key; docs/server-api.md) with its exact envelopes. The deprecated endpoints say so
// with a `Deprecation` header (RFC 9745) and a `Link` to their successor.
import {
  AccessHistoryPage,
  AccessHistoryQuery,
  DeviceList,
  ErrorBody,
  IdentificationCompleteRequest,
  IdentificationCompleteResponse,
  IdParam,
  LegacyDeviceMetadataRequest,
  LegacyDeviceParam,
  LegacySuccess,
} from "@tessera/sdk/contract";
import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../auth.js";
import { badRequest } from "../errors.js";
import type { Services } from "../services.js";
import { ok } from "./describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
/** 2026-01-01T00:00:00Z: the date from which the deprecated endpoints are deprecated. */
const DEPRECATED_SINCE = 1767225600;

function deprecated(reply: FastifyReply, successor: string) {
  reply.header("deprecation", `@${DEPRECATED_SINCE}`).header("link", `<${successor}>; rel="successor-version"`);
}

const legacyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v2/proj/access-history",
    {
      schema: {
        tags: ["legacy"],
        summary: "Access history of a user and/or a device (paginated)",
        description:
          "The access records of `access` evaluations for a user, a device or both (one at least), newest first, in the legacy pagination envelope (`docs`, `totalDocs`, …; `per` 1–50).",
        querystring: AccessHistoryQuery,
        response: { 200: ok(AccessHistoryPage, "A page of access records"), ...errors },
      },
    },
    async (req) => {
      const env = envOf(req);
      const { user, device, per, page } = req.query;
      if (!user && !device) throw badRequest("Give at least one of user or device", "user");
      return services.legacy.accessHistory(env.id, { user, device, page, per });
    },
  );

  app.get(
    "/v2/proj/user/:id/devices",
    {
      schema: {
        tags: ["legacy"],
        summary: "A user's devices (deprecated: use GET /v3/user/:id/devices)",
        description: "The same list as GET /v3/user/:id/devices, with a `Deprecation` header and a `Link` to it.",
        deprecated: true,
        params: IdParam,
        response: { 200: ok(DeviceList, "The user's devices"), ...errors },
      },
    },
    async (req, reply) => {
      deprecated(reply, `/v3/user/${encodeURIComponent(req.params.id)}/devices`);
      return services.devices.listForUser(envOf(req).id, req.params.id);
    },
  );

  app.post(
    "/v2/proj/identification/:id/complete",
    {
      schema: {
        tags: ["legacy"],
        summary: "Complete an identification with the account it belongs to",
        description:
          "The legacy flow: the SDK's `identify()` gave the browser an identification id; your backend names the account, which records an access and answers whether the device is new to it. Once per identification (409 after).",
        params: IdParam,
        body: IdentificationCompleteRequest,
        response: { 200: ok(IdentificationCompleteResponse, "The access recorded and the device"), 409: ErrorBody, ...errors },
      },
    },
    async (req) => services.legacy.completeIdentification(envOf(req).id, req.params.id, req.body.account),
  );

  app.post(
    "/v2/proj/device/:device/metadata",
    {
      schema: {
        tags: ["legacy"],
        summary: "Add metadata fields to a device (deprecated: use POST /v3/devices/:id/metadata)",
        description:
          "Merges `metadata_fields` (each a list of values) into the device's metadata; answers a `Deprecation` header and a `Link` to the successor.",
        deprecated: true,
        params: LegacyDeviceParam,
        body: LegacyDeviceMetadataRequest,
        response: { 200: ok(LegacySuccess, "Merged"), ...errors },
      },
    },
    async (req, reply) => {
      deprecated(reply, `/v3/devices/${encodeURIComponent(req.params.device)}/metadata`);
      await services.devices.mergeMetadataFields(envOf(req).id, req.params.device, req.body.metadata_fields);
      return { success: true as const };
    },
  );
};

export default legacyRoutes;
