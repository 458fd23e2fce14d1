// GET /v3/users?query= and GET /v3/users/:id (docs/console.md): find users, and one user's timeline.
import { ErrorBody, IdParam, UserDetail, UserSearchQuery, UserSearchResult } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { searchUsers, userTimeline } from "../../console/users.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const userDirectoryRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v3/users",
    {
      schema: {
        tags: ["users"],
        summary: "Search users",
        description:
          "`query`: a user id, service id, email or phone (exact), or the start of a user id or email. Without it, the newest users.",
        querystring: UserSearchQuery,
        response: { 200: ok(UserSearchResult, "The users found, newest first"), ...errors },
      },
    },
    async (req) => searchUsers(services, envOf(req).id, req.query.query, req.query.limit),
  );

  app.get(
    "/v3/users/:id",
    {
      schema: {
        tags: ["users"],
        summary: "A user's timeline: profile, devices, latest evaluations and challenges, lists holding them",
        description:
          "`id` is your user id (an email-only account's is its service id). Devices attached or not, the latest evaluations and challenges, and the lists whose entries name the user's id, email, phone or devices.",
        params: IdParam,
        response: { 200: ok(UserDetail, "The user's timeline"), ...errors },
      },
    },
    async (req) => userTimeline(services, envOf(req).id, req.params.id),
  );
};

export default userDirectoryRoutes;
