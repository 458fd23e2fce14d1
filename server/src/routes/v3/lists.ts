// Server API for lists (SPEC.md 5): add and remove values (with an optional expiry), list the entries.
import {
  ErrorBody,
  ListAddRequest,
  ListAddResponse,
  ListIdParam,
  ListRemoveRequest,
  ListRemoveResponse,
  PageQuery,
} from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";

const errors = { 400: ErrorBody, 401: ErrorBody };

const ListEntry = z.object({
  value: z.string(),
  comment: z.optional(z.string()),
  expires_at: z.optional(z.string()),
  createdAt: z.string(),
});

const listRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { lists } = services.repos;

  app.post(
    "/v3/lists/:id/add",
    {
      schema: {
        tags: ["lists"],
        summary: "Add values to a list",
        params: ListIdParam,
        body: ListAddRequest,
        response: { 200: ListAddResponse, ...errors },
      },
    },
    async (req) => lists.add(envOf(req).id, req.params.id, req.body.values, { comment: req.body.comment, ttlSeconds: req.body.ttl }),
  );

  app.post(
    "/v3/lists/:id/remove",
    {
      schema: {
        tags: ["lists"],
        summary: "Remove values from a list",
        params: ListIdParam,
        body: ListRemoveRequest,
        response: { 200: ListRemoveResponse, ...errors },
      },
    },
    async (req) => lists.remove(envOf(req).id, req.params.id, req.body.values),
  );

  app.get(
    "/v3/lists/:id",
    {
      schema: {
        tags: ["lists"],
        summary: "List a list's live entries",
        params: ListIdParam,
        querystring: PageQuery,
        response: {
          200: z.object({ id: z.string(), data: z.array(ListEntry), total: z.number(), page: z.number(), limit: z.number() }),
          ...errors,
        },
      },
    },
    async (req) => {
      const env = envOf(req).id;
      const { page, limit } = req.query;
      const [data, total] = await Promise.all([lists.entries(env, req.params.id, page, limit), lists.count(env, req.params.id)]);
      return { id: req.params.id, data, total, page, limit };
    },
  );
};

export default listRoutes;
