// Authentication hooks: secret keys for the server API, client ids (with per-project origins) for the client API.
import type { FastifyReply, FastifyRequest } from "fastify";
import { originAllowed } from "./domain/origins.js";
import { forbidden, unauthorized } from "./errors.js";
import type { Services } from "./services.js";
import type { EnvironmentRecord } from "./store/projects.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The project environment the request acts in, set by the auth hooks. */
    environment?: EnvironmentRecord;
  }
}

/** The environment of the request, which every authenticated route has. */
export function envOf(req: FastifyRequest): EnvironmentRecord {
  if (!req.environment) throw unauthorized();
  return req.environment;
}

export const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** onRequest hook for the server API: `Authorization: Bearer <secret>`; revocation takes effect at once. */
export function requireSecret(services: Services) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    // A console call already authenticated by its session (console/session-auth.ts, which runs first).
    if (req.operator) return;
    const header = req.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    if (!m?.[1]) throw unauthorized("Missing secret key: send Authorization: Bearer <secret>");
    const env = await services.environments.bySecret(m[1]);
    if (!env) throw unauthorized("Unknown or revoked secret key");
    req.environment = env;
  };
}

/** Resolves a client id to its environment and enforces the origin allow-list; sets the CORS answer headers. */
export async function authenticateClient(
  services: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  clientId: string,
): Promise<EnvironmentRecord> {
  const env = await services.environments.byClientId(clientId);
  if (!env)
    throw unauthorized(
      "Unknown client_id: pass the client id of one of your project's environments (printed when the project was created, and on the console's Settings screen)",
    );
  const origin = req.headers.origin;
  // Requests without an Origin header do not come from a browser page: CORS does not apply to them. A refused origin
  // still reads this refusal (routes/client.ts, corsOnRefusals), and nothing else.
  if (origin) {
    if (!originAllowed(env, origin, new URL(services.config.publicUrl).origin)) {
      throw forbidden(
        `Origin ${origin} is not allowed for this client_id: add it to the ${env.name} environment's allowed origins (the console's Settings screen, or \`tessera projects origins <project> --env ${env.name} --set …\`)`,
      );
    }
    reply.header("access-control-allow-origin", origin);
    reply.header("vary", "Origin");
  }
  req.environment = env;
  return env;
}
