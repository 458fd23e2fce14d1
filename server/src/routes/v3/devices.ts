// Server API for devices (docs/server-api.md): attach, detach (the SDK is told to log out) and metadata.
import { Device, DeviceAttachRequest, DeviceMetadataRequest, ErrorBody, IdParam } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const deviceRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    "/v3/devices/:id/attach",
    {
      schema: {
        tags: ["devices"],
        summary: "Attach a device to a user",
        description:
          "The backend's counterpart of the client attach (which needs a user_token): the device joins the user's account, whoever held it before (the user is created if new).",
        params: IdParam,
        body: DeviceAttachRequest,
        response: { 200: ok(Device, "The device, attached to the user"), ...errors },
      },
    },
    async (req) => services.devices.attach(envOf(req).id, req.params.id, req.body.user),
  );

  app.post(
    "/v3/devices/:id/detach",
    {
      schema: {
        tags: ["devices"],
        summary: "Detach a device from its user",
        description:
          "Logs a device out of its account: its SDK calls `on_logout` at its next evaluation or heartbeat; emits `device.detached`. Takes no body.",
        params: IdParam,
        response: { 200: ok(Device, "The device, detached"), ...errors },
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
        description: "Sets the device's `metadata` object to the one sent (your own labels: a name, managed or not, …).",
        params: IdParam,
        body: DeviceMetadataRequest,
        response: { 200: ok(Device, "The device with its new metadata"), ...errors },
      },
    },
    async (req) => services.devices.setMetadata(envOf(req).id, req.params.id, req.body.metadata),
  );
};

export default deviceRoutes;
