// Server API for devices (SPEC.md 5): detach (the SDK is told to log out) and metadata.
import { Device, DeviceMetadataRequest, ErrorBody, IdParam } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const deviceRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    "/v3/devices/:id/detach",
    {
      schema: {
        tags: ["devices"],
        summary: "Detach a device from its user",
        description: "The device's SDK answers `logout: true` at its next evaluation; emits `device.detached`.",
        params: IdParam,
        response: { 200: Device, ...errors },
      },
    },
    async (req) => services.devices.detach(envOf(req).id, req.params.id, { logout: true }),
  );

  app.post(
    "/v3/devices/:id/metadata",
    {
      schema: {
        tags: ["devices"],
        summary: "Replace a device's metadata",
        params: IdParam,
        body: DeviceMetadataRequest,
        response: { 200: Device, ...errors },
      },
    },
    async (req) => services.devices.setMetadata(envOf(req).id, req.params.id, req.body.metadata),
  );
};

export default deviceRoutes;
