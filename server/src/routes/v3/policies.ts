// Server API for policies (docs/policies.md): list, create, read, update, delete, scoped to the secret key's environment.
// The policies service (domain/policies.ts) seeds the defaults and validates beyond the schema.
import {
  ErrorBody,
  IdParam,
  PageQuery,
  Policy,
  PolicyCreateRequest,
  PolicyDeleted,
  PolicyPage,
  PolicyPatchRequest,
} from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const policyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const policies = services.policies;

  app.get(
    "/v3/policies",
    {
      schema: {
        tags: ["policies"],
        summary: "List the environment's policies, highest priority first",
        description:
          "The policies that decide verdicts, in the order they are tried: the defaults a new environment starts with (seeded on first use), yours, and those of CONFIG_FILE. Paginated.",
        querystring: PageQuery,
        response: { 200: ok(PolicyPage, "A page of policies"), ...errors },
      },
    },
    async (req) => policies.page(envOf(req), req.query.page, req.query.limit),
  );

  app.post(
    "/v3/policies",
    {
      schema: {
        tags: ["policies"],
        summary: "Create a policy",
        description:
          "A condition tree (`all`/`any`/`not` over `{ check, op, value }`) and the verdict it gives; a challenge verdict names the challenge. Validated on write: an unknown check, a value of the wrong type or a return URL off the allowed origins is a 400 naming the field.",
        body: PolicyCreateRequest,
        response: { 201: ok(Policy, "The policy, in force at once"), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(await policies.create(envOf(req), req.body)),
  );

  app.get(
    "/v3/policies/:id",
    {
      schema: {
        tags: ["policies"],
        summary: "Retrieve a policy",
        description: "One policy of the key's environment, as it is evaluated.",
        params: IdParam,
        response: { 200: ok(Policy, "The policy"), ...errors },
      },
    },
    async (req) => policies.get(envOf(req), req.params.id),
  );

  app.patch(
    "/v3/policies/:id",
    {
      schema: {
        tags: ["policies"],
        summary: "Update a policy",
        description: 'Only the fields sent change (e.g. `{ "enabled": false }`); the result is validated as a whole, like a new policy.',
        params: IdParam,
        body: PolicyPatchRequest,
        response: { 200: ok(Policy, "The updated policy"), ...errors },
      },
    },
    async (req) => policies.update(envOf(req), req.params.id, req.body),
  );

  app.delete(
    "/v3/policies/:id",
    {
      schema: {
        tags: ["policies"],
        summary: "Delete a policy",
        description: "Removes the policy; a deleted default policy stays deleted (defaults are seeded once).",
        params: IdParam,
        response: { 200: ok(PolicyDeleted, "The policy is gone"), ...errors },
      },
    },
    async (req) => {
      await policies.delete(envOf(req), req.params.id);
      return { id: req.params.id, deleted: true };
    },
  );
};

export default policyRoutes;
