// The console (docs/console.md): the built Preact app from console/dist at /console/, under the same strict CSP and
// security headers as the hosted challenge app, and the session endpoints it signs in with. Everything else the
// console shows comes from the /v3 server API, authenticated by the session (console/session-auth.ts).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConsoleSession, ConsoleSignOut, ErrorBody, LinkSignInRequest, SignInRequest } from "@tessera/sdk/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { SESSION_TTL_MS, type SignedIn } from "../console/operators.js";
import { checkOrigin, sessionCookie, sessionToken } from "../console/session-auth.js";
import { unauthorized } from "../errors.js";
import type { Services } from "../services.js";
import { errorBody, exists, registerAssets, SECURITY_HEADERS } from "./challenge-app.js";
import { ok, SECURITY } from "./describe.js";

const DEFAULT_DIST = fileURLToPath(new URL("../../../console/dist", import.meta.url));

const consoleRoutes: FastifyPluginAsyncZod<{ services: Services; distDir?: string }> = async (app, { services, distDir }) => {
  const dist = distDir ?? DEFAULT_DIST;
  const cookie = sessionCookie(services.config.isDev);

  app.addHook("onSend", async (_req, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    reply.header("cache-control", reply.getHeader("cache-control") ?? "no-store");
    return payload;
  });

  const index = async (_req: FastifyRequest, reply: FastifyReply) => {
    const file = join(dist, "index.html");
    if (!(await exists(file))) {
      reply.log.error({ dist }, "console not built");
      return reply.status(503).send(errorBody(503, "internal", "The console is not built: run npm run build"));
    }
    return reply
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      .send(await readFile(file));
  };
  const hidden = { schema: { hide: true } };
  app.get("/console", hidden, async (_req, reply) => reply.redirect("/console/", 302));
  app.get("/console/", hidden, index);
  await registerAssets(app, "/console/assets/", join(dist, "assets"), () => undefined);

  const signedIn = async (reply: FastifyReply, s: SignedIn) => {
    reply.setCookie(cookie, s.token, {
      httpOnly: true,
      sameSite: "strict",
      secure: !services.config.isDev,
      path: "/",
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    return services.operators.session(s.operator);
  };
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
  const tags = ["console"];
  const CONSOLE_SESSION = [{ consoleSession: [] }];

  app.get(
    "/console/api/session",
    {
      schema: {
        tags,
        summary: "The signed-in operator and the projects it may open",
        description: "The console's own API: who the session cookie belongs to, and each project it may open with its role there.",
        security: CONSOLE_SESSION,
        response: { 200: ok(ConsoleSession, "The operator and its projects"), ...errors },
      },
    },
    async (req) => {
      const operator = await services.operators.fromToken(sessionToken(services, req));
      if (!operator) throw unauthorized("Not signed in");
      return services.operators.session(operator);
    },
  );

  app.post(
    "/console/api/sign-in",
    {
      schema: {
        tags,
        summary: "Sign in with email and password (sets the session cookie)",
        description:
          "The console's own API: sets an HttpOnly, SameSite=Strict session cookie (Secure in production) for 12 hours. The request's Origin must be this server. Attempts are rate-limited per (email, address) and per address, an IPv6 address counting as its /64 (429).",
        security: SECURITY.none,
        body: SignInRequest,
        response: { 200: ok(ConsoleSession, "Signed in: the operator and its projects"), ...errors },
      },
    },
    async (req, reply) => {
      checkOrigin(services, req);
      return signedIn(reply, await services.operators.signIn(req.body.email, req.body.password, req.ip));
    },
  );

  app.post(
    "/console/api/link",
    {
      schema: {
        tags,
        summary: "Choose a password with a one-time sign-in link and sign in",
        description:
          "The console's own API: the token of a link printed by `tessera operators create` or `operators link` (usable once, for 24 hours) and the password the operator chooses: 12 characters or more, and hard to guess (zxcvbn score 3 or more, the operator's email counted as known words; else 400 naming `password` with the reason). Ends the operator's other sessions.",
        security: SECURITY.none,
        body: LinkSignInRequest,
        response: { 200: ok(ConsoleSession, "Signed in: the operator and its projects"), ...errors },
      },
    },
    async (req, reply) => {
      checkOrigin(services, req);
      return signedIn(reply, await services.operators.useLink(req.body.token, req.body.password, req.ip));
    },
  );

  app.post(
    "/console/api/sign-out",
    {
      schema: {
        tags,
        summary: "Sign out (ends the session)",
        description:
          "The console's own API: ends the session of the cookie sent, if any, and clears the cookie. Takes no body; the request's Origin must be this server.",
        security: SECURITY.none,
        response: { 200: ok(ConsoleSignOut, "Signed out"), ...errors },
      },
    },
    async (req, reply) => {
      checkOrigin(services, req);
      await services.operators.signOut(sessionToken(services, req));
      reply.clearCookie(cookie, { path: "/", httpOnly: true, sameSite: "strict", secure: !services.config.isDev });
      return { signed_out: true as const };
    },
  );
};

export default consoleRoutes;
