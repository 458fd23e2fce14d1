// What a console session may do on the server API (docs/console.md), as one table: each route the console uses and the
// least role it needs. A route missing here answers 403 to a session (a script's secret key is not limited by this
// table, except for `consoleOnly` routes, which keys may not use). What the audit log records is audit-table.ts.
import type { Role } from "@tessera/sdk/contract";
import type { FastifyRequest } from "fastify";

export interface Permission {
  role: Role;
  /** Only a console session may call it (environment settings and keys are not for secret keys). */
  consoleOnly?: boolean;
}

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

  "POST /v3/policies": { role: "owner" },
  "PATCH /v3/policies/:id": { role: "owner" },
  "DELETE /v3/policies/:id": { role: "owner" },
  "POST /v3/lists/:id/add": { role: "analyst" },
  "POST /v3/lists/:id/remove": { role: "analyst" },
  "POST /v3/challenges/:id/override": { role: "analyst" },
  "POST /v3/webhook-endpoints": { role: "owner" },
  "DELETE /v3/webhook-endpoints/:id": { role: "owner" },
  "POST /v3/webhook-endpoints/:id/deliveries/:delivery/retry": { role: "owner" },
  "POST /v3/webhook-endpoints/:id/test": { role: "owner" },
  "POST /v3/devices/:id/detach": { role: "owner" },
  "DELETE /v3/user/:id": { role: "owner" },
  "PATCH /v3/settings": { role: "owner", consoleOnly: true },
  "POST /v3/keys": { role: "owner", consoleOnly: true },
  "POST /v3/keys/:id/revoke": { role: "owner", consoleOnly: true },
};

export function permissionFor(req: FastifyRequest): Permission | undefined {
  return PERMISSIONS[`${req.method} ${req.routeOptions.url ?? ""}`];
}
