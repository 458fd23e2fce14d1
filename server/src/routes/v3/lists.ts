// Server API for lists (docs/server-api.md): add and remove values (with an optional expiry), list the entries.
import {
  ErrorBody,
  ListAddRequest,
  ListAddResponse,
  ListEntries,
  ListIdParam,
  ListRemoveRequest,
  ListRemoveResponse,
  ListSummaries,
  listValuesOf,
  PageQuery,
} from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody };

const listRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { lists } = services;

  app.get(
    "/v3/lists",
    {
      schema: {
        tags: ["lists"],
        summary: "The environment's lists with their live entry counts",
        description: "Every list holding at least one entry that has not expired, with its count and the time of its latest change.",
        response: { 200: ok(ListSummaries, "The lists"), ...errors },
      },
    },
    async (req) => ({ data: await lists.summaries(envOf(req).id) }),
  );

  app.post(
    "/v3/lists/:id/add",
    {
      schema: {
        tags: ["lists"],
        summary: "Add values to a list",
        description:
          '`value`, or `values`: up to 500 user ids, IPs, emails or email domains, fingerprint or device ids, phones or country codes, with a comment and a `ttl` in seconds; a value already there gets the new comment and expiry. Policies test lists with `in_list`; in development the test_* lists force verdicts (README "Test mode"), and production refuses them.',
        params: ListIdParam,
        body: ListAddRequest,
        response: { 200: ok(ListAddResponse, "How many values were added and updated, and the list's size"), ...errors },
      },
    },
    async (req) => lists.add(envOf(req), req.params.id, listValuesOf(req.body), { comment: req.body.comment, ttlSeconds: req.body.ttl }),
  );

  app.post(
    "/v3/lists/:id/remove",
    {
      schema: {
        tags: ["lists"],
        summary: "Remove values from a list",
        description: "Removes the `value` or `values` given (up to 500); values not on the list are ignored.",
        params: ListIdParam,
        body: ListRemoveRequest,
        response: { 200: ok(ListRemoveResponse, "How many values were removed, and the list's size"), ...errors },
      },
    },
    async (req) => lists.remove(envOf(req).id, req.params.id, listValuesOf(req.body)),
  );

  app.get(
    "/v3/lists/:id",
    {
      schema: {
        tags: ["lists"],
        summary: "List a list's live entries",
        description: "The values not yet expired, by value, with their comment and expiry. Paginated.",
        params: ListIdParam,
        querystring: PageQuery,
        response: { 200: ok(ListEntries, "A page of the list's entries"), ...errors },
      },
    },
    async (req) => lists.entries(envOf(req).id, req.params.id, req.query.page, req.query.limit),
  );
};

export default listRoutes;
