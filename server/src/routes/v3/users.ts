// Server API for users (docs/server-api.md): their devices, partial updates, erasure.
import { DeviceList, ErrorBody, IdParam, UserErasure, UserUpdateRequest } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf } from "../../auth.js";
import { checkContacts } from "../../delivery/addresses.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const userRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v3/user/:id/devices",
    {
      schema: {
        tags: ["users"],
        summary: "List a user's devices",
        description:
          "Every device the user was seen on, attached or detached, with its browser and OS, last sighting, last IP address and its place, and metadata. A user Tessera has never met (no evaluation or update named the id) answers 404, as `DELETE /v3/user/:id` and `GET /v3/users/:id` do: a mistyped id says so rather than looking like a user without devices.",
        params: IdParam,
        response: { 200: ok(DeviceList, "The user's devices, attached or detached"), ...errors },
      },
    },
    async (req) => services.devices.listForUser(envOf(req).id, req.params.id),
  );

  app.post(
    "/v3/user/:id/update",
    {
      schema: {
        tags: ["users"],
        summary: "Update a user (only the sent fields change)",
        description:
          "Sets the user's contacts (where challenge codes go: a client evaluation never changes them), metadata and groups; `null` clears a contact. Metadata is merged key by key (a key sent as `null` is removed); groups (objects `{ id, name?, metadata? }` or bare ids) replace the stored ones. Creates the user if new.",
        params: IdParam,
        body: UserUpdateRequest,
        response: { 204: ok(z.null(), "Updated"), ...errors },
      },
    },
    async (req, reply) => {
      checkContacts(req.body);
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
        response: { 200: ok(UserErasure, "What was erased, by kind"), ...errors },
      },
    },
    async (req) => services.privacy.eraseUser(envOf(req).id, req.params.id),
  );
};

export default userRoutes;
