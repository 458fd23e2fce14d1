// Server API for policies (SPEC.md 6): list, create, read, update, delete, scoped to the secret key's environment.
// Validation beyond the schema (known checks, value types, a challenge for challenge verdicts) is in policies/validate.
import { ErrorBody, IdParam, Policy, PolicyCreateRequest, PolicyPatchRequest } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf } from "../../auth.js";
import { badRequest, notFound } from "../../errors.js";
import { ensureDefaultPolicies } from "../../policies/index.js";
import { validatePolicy } from "../../policies/validate.js";
import type { Services } from "../../services.js";
import { type StoredPolicy, toWirePolicy } from "../../store/policies.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/** The wire policy without the store's bookkeeping (source, source key). */
function wire(p: StoredPolicy): Policy {
  const { source: _s, source_key: _k, ...rest } = p;
  return rest;
}

const policyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { repos } = services;

  app.get(
    "/v3/policies",
    {
      schema: {
        tags: ["policies"],
        summary: "List the environment's policies, highest priority first",
        response: { 200: z.object({ data: z.array(Policy) }), ...errors },
      },
    },
    async (req) => {
      const env = envOf(req);
      await ensureDefaultPolicies(repos, env);
      return { data: (await repos.policies.list(env.id)).map((r) => wire(toWirePolicy(r, env.name))) };
    },
  );

  app.post(
    "/v3/policies",
    { schema: { tags: ["policies"], summary: "Create a policy", body: PolicyCreateRequest, response: { 201: Policy, ...errors } } },
    async (req, reply) => {
      const env = envOf(req);
      const b = req.body;
      if (b.environment && b.environment !== env.name) throw badRequest(`This key belongs to the ${env.name} environment`, "environment");
      validatePolicy(b);
      await ensureDefaultPolicies(repos, env);
      const row = await repos.policies.create(env.id, { ...b });
      return reply.status(201).send(wire(toWirePolicy(row, env.name)));
    },
  );

  app.get(
    "/v3/policies/:id",
    { schema: { tags: ["policies"], summary: "Retrieve a policy", params: IdParam, response: { 200: Policy, ...errors } } },
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
        params: IdParam,
        body: PolicyPatchRequest,
        response: { 200: Policy, ...errors },
      },
    },
    async (req) => {
      const env = envOf(req);
      const existing = await repos.policies.find(env.id, req.params.id);
      if (!existing) throw notFound("Policy");
      const b = req.body;
      if (b.environment && b.environment !== env.name) throw badRequest(`This key belongs to the ${env.name} environment`, "environment");
      validatePolicy(b, toWirePolicy(existing, env.name));
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
        params: IdParam,
        response: { 200: z.object({ id: z.string(), deleted: z.boolean() }), ...errors },
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
