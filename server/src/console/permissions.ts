// What a console session may do on the server API (SPEC.md 14), as one table: each route the console uses, the
// least role it needs, and how a change is written to the audit log. A route missing here answers 403 to a session
// (a script's secret key is not limited by this table, except for `consoleOnly` routes, which keys may not use).
import type { Role } from "@tessera/sdk/contract";
import type { FastifyRequest } from "fastify";
import type { Services } from "../services.js";
import { toWirePolicy } from "../store/policies.js";
import type { EnvironmentRecord } from "../store/projects.js";
import { readSettings } from "./settings.js";

export interface AuditSpec {
  /** e.g. policy.update */
  action: string;
  targetType: string;
  /** The path parameter naming the target, if any. */
  idParam?: string;
  /** Reads the target before the change (for the entry's `before`). */
  before?: (services: Services, env: EnvironmentRecord, req: FastifyRequest) => Promise<unknown>;
  /** What the entry keeps as `after`: the answer (default), the request body, or nothing. */
  after?: "response" | "body" | "none";
}

export interface Permission {
  role: Role;
  audit?: AuditSpec;
  /** Only a console session may call it (environment settings and keys are not for secret keys). */
  consoleOnly?: boolean;
}

const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name] ?? "";

const policyBefore: AuditSpec["before"] = async (s, env, req) => {
  const row = await s.repos.policies.find(env.id, param(req, "id"));
  return row && toWirePolicy(row, env.name);
};

const READ: Permission = { role: "viewer" };

/** `METHOD url` as Fastify names the route. */
export const PERMISSIONS: Record<string, Permission> = {
  "GET /v3/evaluations": READ,
  "GET /v3/evaluations/:id": READ,
  "GET /v3/users": READ,
  "GET /v3/users/:id": READ,
  "GET /v3/user/:id/devices": READ,
  "GET /v3/stats/evaluations": READ,
  "GET /v3/audit-log": READ,
  "GET /v3/policies": READ,
  "GET /v3/policies/:id": READ,
  // A backtest changes nothing: anyone who may read the evaluations may run one.
  "POST /v3/policies/backtest": READ,
  "GET /v3/lists": READ,
  "GET /v3/lists/:id": READ,
  "GET /v3/webhook-endpoints": READ,
  "GET /v3/webhook-endpoints/:id/deliveries": READ,
  "GET /v3/challenges": READ,
  "GET /v3/challenges/:id": READ,
  "GET /v3/settings": READ,
  "GET /v3/keys": { role: "owner", consoleOnly: true },

  "POST /v3/policies": { role: "owner", audit: { action: "policy.create", targetType: "policy" } },
  "PATCH /v3/policies/:id": {
    role: "owner",
    audit: { action: "policy.update", targetType: "policy", idParam: "id", before: policyBefore },
  },
  "DELETE /v3/policies/:id": {
    role: "owner",
    audit: { action: "policy.delete", targetType: "policy", idParam: "id", before: policyBefore, after: "none" },
  },
  "POST /v3/lists/:id/add": { role: "analyst", audit: { action: "list.add", targetType: "list", idParam: "id", after: "body" } },
  "POST /v3/lists/:id/remove": { role: "analyst", audit: { action: "list.remove", targetType: "list", idParam: "id", after: "body" } },
  "POST /v3/challenges/:id/override": {
    role: "analyst",
    audit: {
      action: "challenge.override",
      targetType: "challenge",
      idParam: "id",
      before: (s, env, req) => s.challenges.get(env, param(req, "id")).catch(() => undefined),
    },
  },
  "POST /v3/webhook-endpoints": { role: "owner", audit: { action: "webhook_endpoint.create", targetType: "webhook_endpoint" } },
  "DELETE /v3/webhook-endpoints/:id": {
    role: "owner",
    audit: {
      action: "webhook_endpoint.delete",
      targetType: "webhook_endpoint",
      idParam: "id",
      before: async (s, env, req) => (await s.webhookEndpoints.list(env)).find((e) => e.id === param(req, "id")),
      after: "none",
    },
  },
  "POST /v3/webhook-endpoints/:id/deliveries/:delivery/retry": {
    role: "owner",
    audit: { action: "webhook_delivery.retry", targetType: "webhook_delivery", idParam: "delivery" },
  },
  "POST /v3/webhook-endpoints/:id/test": {
    role: "owner",
    audit: { action: "webhook_endpoint.test", targetType: "webhook_endpoint", idParam: "id" },
  },
  "POST /v3/devices/:id/detach": { role: "owner", audit: { action: "device.detach", targetType: "device", idParam: "id" } },
  "DELETE /v3/user/:id": { role: "owner", audit: { action: "user.erase", targetType: "user", idParam: "id" } },
  "PATCH /v3/settings": {
    role: "owner",
    consoleOnly: true,
    audit: {
      action: "settings.update",
      targetType: "environment",
      before: (s, env) => readSettings(s, env.id),
    },
  },
  "POST /v3/keys": { role: "owner", consoleOnly: true, audit: { action: "key.create", targetType: "key" } },
  "POST /v3/keys/:id/revoke": { role: "owner", consoleOnly: true, audit: { action: "key.revoke", targetType: "key", idParam: "id" } },
};

export function permissionFor(req: FastifyRequest): Permission | undefined {
  return PERMISSIONS[`${req.method} ${req.routeOptions.url ?? ""}`];
}
