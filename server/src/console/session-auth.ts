// Console sessions on the server API (docs/console.md). The console calls the same /v3 routes as scripts, with its
// session cookie and the environment it shows in the X-Tessera-Environment header instead of a secret key; this hook
// authenticates such calls before any route's own authentication runs: the session must be live, the operator must
// have a role on the environment's project (else 404, as if it did not exist), the route must be in the permission
// table with a role the operator has, and a change must come from the console's own origin (CSRF).
import type { Role } from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import { ApiError, forbidden, notFound, unauthorized } from "../errors.js";
import type { Repos } from "../store/repos.js";
import type { OperatorsService } from "./operators.js";
import { permissionFor } from "./permissions.js";
import { roleAllows } from "./roles.js";

export const ENVIRONMENT_HEADER = "x-tessera-environment";

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in operator of a console call, set by the session hook. */
    operator?: { id: string; email: string; role: Role };
  }
}

/** The session cookie: `__Host-` in production, which browsers accept only Secure, host-only and on path /. */
export const sessionCookie = (isDev: boolean) => (isDev ? "tessera_console" : "__Host-tessera_console");

/** What a console call is authenticated with. */
export type SessionServices = { config: Config; repos: Repos; operators: OperatorsService };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A state-changing request must name our origin: browsers always send Origin on cross-site and same-origin POST,
 * PATCH and DELETE, so another site's page cannot forge one (SameSite=Strict keeps the cookie off it as well).
 */
export function checkOrigin(services: SessionServices, req: FastifyRequest): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  const own = new Set([new URL(services.config.publicUrl).origin]);
  if (req.headers.host) own.add(`${req.protocol}://${req.headers.host}`);
  if (!origin || !own.has(origin)) throw forbidden("Cross-site request refused: the console may change things only from its own origin");
}

export function sessionToken(services: SessionServices, req: FastifyRequest): string | undefined {
  return req.cookies?.[sessionCookie(services.config.isDev)];
}

export function consoleSessionHook(services: SessionServices) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const environmentId = req.headers[ENVIRONMENT_HEADER];
    // Not a console call (a script with its key, the SDK, the hosted challenge app): the route's own auth decides.
    if (typeof environmentId !== "string" || req.headers.authorization) return;
    const permission = permissionFor(req);
    if (!permission) throw forbidden("This operation is not available from the console");
    const operator = await services.operators.fromToken(sessionToken(services, req));
    if (!operator) throw unauthorized("Sign in to the console first");
    checkOrigin(services, req);
    const env = await services.repos.projects.environmentById(environmentId);
    const role = env && (await services.operators.roleFor(operator, env.projectId));
    if (!env || !role) throw notFound("Environment");
    if (!roleAllows(role, permission.role))
      throw new ApiError(403, "forbidden", `Your role (${role}) cannot do this; it needs ${permission.role}`);
    req.environment = env;
    req.operator = { id: operator.id, email: operator.email, role };
  };
}

/** Routes only a console session may use refuse a secret key (it is scoped to scripts, not to administration). */
export function consoleOnly(req: FastifyRequest): void {
  if (!req.operator) throw forbidden("Only a signed-in console operator may do this");
}
