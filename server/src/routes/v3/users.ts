// Server API for users (SPEC.md 5): their devices, partial updates, erasure.
import { DeviceList, ErrorBody, IdParam, UserErasure, UserUpdateRequest } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const userRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v3/user/:id/devices",
    { schema: { tags: ["users"], summary: "List a user's devices", params: IdParam, response: { 200: DeviceList, ...errors } } },
    async (req) => services.devices.listForUser(envOf(req).id, req.params.id),
  );

  app.post(
    "/v3/user/:id/update",
    {
      schema: {
        tags: ["users"],
        summary: "Update a user (only the sent fields change)",
        params: IdParam,
        body: UserUpdateRequest,
        response: { 204: z.null(), ...errors },
      },
    },
    async (req, reply) => {
      await services.users.update(envOf(req).id, req.params.id, req.body);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    "/v3/user/:id",
    {
      schema: {
        tags: ["users"],
        summary: "Erase a user's data (privacy law)",
        description:
          "Deletes the user's evaluations, devices, fingerprints seen only with them, challenges and access records; answers the counts.",
        params: IdParam,
        response: { 200: UserErasure, ...errors },
      },
    },
    async (req) => services.privacy.eraseUser(envOf(req).id, req.params.id),
  );
};

export default userRoutes;
