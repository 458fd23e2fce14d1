// Server API for policies (SPEC.md 6): list, create, read, update, delete, scoped to the secret key's environment.
// Validation beyond the schema (known checks, value types, a challenge for challenge verdicts) is in policies/validate.
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
import { checkReturnUrls } from "../../challenges/return-urls.js";
import { badRequest, notFound } from "../../errors.js";
import { ensureDefaultPolicies } from "../../policies/index.js";
import { validatePolicy } from "../../policies/validate.js";
import type { Services } from "../../services.js";
import { type StoredPolicy, toWirePolicy } from "../../wire/policies.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/** The wire policy without the store's bookkeeping (source, source key). */
function wire(p: StoredPolicy): Policy {
  const { source: _s, source_key: _k, ...rest } = p;
  return rest;
}

const policyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { repos } = services;
  const ownOrigin = new URL(services.config.publicUrl).origin;

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
    async (req) => {
      const env = envOf(req);
      const { page, limit } = req.query;
      await ensureDefaultPolicies(repos, env);
      const { rows, total } = await repos.policies.page(env.id, page, limit);
      return { data: rows.map((r) => wire(toWirePolicy(r, env.name))), total, page, limit };
    },
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
    async (req, reply) => {
      const env = envOf(req);
      const b = req.body;
      if (b.environment && b.environment !== env.name) throw badRequest(`This key belongs to the ${env.name} environment`, "environment");
      validatePolicy(b);
      checkReturnUrls(env, b.challenge, ownOrigin);
      await ensureDefaultPolicies(repos, env);
      const row = await repos.policies.create(env.id, { ...b });
      return reply.status(201).send(wire(toWirePolicy(row, env.name)));
    },
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
    async (req) => {
      const env = envOf(req);
      const row = await repos.policies.find(env.id, req.params.id);
      if (!row) throw notFound("Policy");
      return wire(toWirePolicy(row, env.name));
    },
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
    async (req) => {
      const env = envOf(req);
      const existing = await repos.policies.find(env.id, req.params.id);
      if (!existing) throw notFound("Policy");
      const b = req.body;
      if (b.environment && b.environment !== env.name) throw badRequest(`This key belongs to the ${env.name} environment`, "environment");
      validatePolicy(b, toWirePolicy(existing, env.name));
      checkReturnUrls(env, b.challenge, ownOrigin);
      const { environment: _e, ...patch } = b;
      const row = await repos.policies.update(env.id, req.params.id, patch);
      if (!row) throw notFound("Policy");
      return wire(toWirePolicy(row, env.name));
    },
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
      const env = envOf(req);
      if (!(await repos.policies.delete(env.id, req.params.id))) throw notFound("Policy");
      return { id: req.params.id, deleted: true };
    },
  );
};

export default policyRoutes;
