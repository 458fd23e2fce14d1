// The Fastify application: one port serving the server API, the client API, the SDK bundle, the challenge app,
// the OpenAPI document and reference, health, and in development the demo site (docs/architecture.md).
import fastifyCookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { requireSecret } from "./auth.js";
import { registerAudit } from "./console/audit.js";
import { consoleSessionHook } from "./console/session-auth.js";
import { frameworkErrors, registerErrorHandling } from "./error-handler.js";
import { initGeo } from "./geo/index.js";
import { loadConfigFile } from "./import/config-file.js";
import { registerObservation } from "./observe.js";
import { registerClientRateLimit } from "./rate-limit/plugin.js";
import { depthLimitedJsonParser, registerRequestLimits } from "./request-limits.js";
import challengeApp from "./routes/challenge-app.js";
import clientRoutes, { corsOnRefusals } from "./routes/client.js";
import clientDeviceRoutes from "./routes/client-devices.js";
import consoleRoutes from "./routes/console.js";
import deliveryCallbackRoutes from "./routes/delivery-callbacks.js";
import demo, { type DemoOptions } from "./routes/demo.js";
import { documentSecurity, SECURITY } from "./routes/describe.js";
import { registerOpenApi } from "./routes/docs.js";
import healthRoutes from "./routes/health.js";
import legacyRoutes from "./routes/legacy-v2.js";
import metricsRoutes from "./routes/metrics.js";
import sdkAssets from "./routes/sdk-assets.js";
import auditLogRoutes from "./routes/v3/audit-log.js";
import backtestRoutes from "./routes/v3/backtest.js";
import challengeRoutes from "./routes/v3/challenges.js";
import deviceRoutes from "./routes/v3/devices.js";
import evaluationSearchRoutes from "./routes/v3/evaluation-search.js";
import evaluationRoutes from "./routes/v3/evaluations.js";
import listRoutes from "./routes/v3/lists.js";
import policyRoutes from "./routes/v3/policies.js";
import settingsRoutes from "./routes/v3/settings.js";
import statsRoutes from "./routes/v3/stats.js";
import userDirectoryRoutes from "./routes/v3/user-directory.js";
import userRoutes from "./routes/v3/users.js";
import webhookRoutes from "./routes/v3/webhooks.js";
import { serializerCompiler } from "./serialize.js";
import type { Services } from "./services.js";

function trustProxy(value: string | undefined): boolean | string[] {
  if (!value) return false;
  if (value === "1" || value === "true") return true;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function buildApp(services: Services, opts: { logger?: boolean; demo?: DemoOptions } = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    // The process's logger (log.ts), shared with the background jobs.
    ...(opts.logger === false ? { logger: false } : { loggerInstance: services.log as FastifyBaseLogger }),
    trustProxy: trustProxy(config.TRUST_PROXY),
    bodyLimit: config.BODY_LIMIT,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.CONNECTION_TIMEOUT_MS,
    // Node checks requestTimeout on this interval (default 30 s): a short timeout needs a short interval to bite.
    http: { connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.REQUEST_TIMEOUT_MS / 4))) },
    keepAliveTimeout: 5_000,
    genReqId: () => crypto.randomUUID(),
    // One access line per request (below) instead of Fastify's two: logging is a measurable share of a request.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { coerceTypes: false } },
    frameworkErrors,
  });
  app.setValidatorCompiler(validatorCompiler);
  // Every answer is serialised through its route's response schema (the contract's, sdk/src/contract): keys the
  // schema does not declare are stripped (an internal field such as a code hash or a webhook secret stored on the
  // row never reaches the wire), and an answer that does not match it is a 500 (ResponseSerializationError), which
  // fails the tests loudly. Compiled from each schema where that writes the zod path's bytes (serialize.ts).
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerRequestLimits(app, config);
  // Nothing is acknowledged before it is committed: with the embedded store's group commit, a request's writes are
  // committed with its event-loop turn's batch, a moment after the handler returns (store/db.ts, GroupCommit).
  app.addHook("onSend", async () => {
    await services.store.durable();
  });
  // The access log (one line per request; an evaluation's names its id and verdict) and the metrics.
  registerObservation(app, services);
  registerClientRateLimit(app, services);
  // The console (docs/console.md): session cookies, console calls authenticated before any route's own auth, the audit log.
  await app.register(fastifyCookie);
  app.addHook("onRequest", consoleSessionHook(services));
  registerAudit(app, services);
  await registerOpenApi(app, config.publicUrl);
  // Offline geo data into memory, CONFIG_FILE policies and lists: once, before the first request.
  initGeo({ cityDb: config.GEOIP_CITY_DB, asnDb: config.GEOIP_ASN_DB, torList: config.TOR_EXIT_LIST, networkList: config.NETWORK_LIST });
  if (config.CONFIG_FILE) await loadConfigFile(services, config.CONFIG_FILE);

  await app.register(healthRoutes, { services });
  await app.register(metricsRoutes, { services });
  await app.register(sdkAssets);
  await app.register(challengeApp);
  await app.register(consoleRoutes, { services });
  // The demo customer site: development only, and only when the server was given credentials for it.
  if (config.isDev && opts.demo) await app.register(demo, { outbox: () => services.challenges.developmentOutbox(), ...opts.demo });
  await app.register(async (client) => {
    client.addHook("onRoute", documentSecurity(SECURITY.none));
    // The SDK posts its JSON as text/plain: a "simple" cross-origin request needs no CORS preflight, which saves
    // every browser call a round trip. Parsed as JSON like any other body (depth limit, prototype-poisoning safe).
    client.addContentTypeParser("text/plain", { parseAs: "string" }, depthLimitedJsonParser(client));
    // Every refusal (a bad client id or origin, a bad body, a limit) reaches the page with its message.
    client.addHook("onSend", corsOnRefusals);
    await client.register(clientRoutes, { services });
    await client.register(clientDeviceRoutes, { services });
  });
  // The SMS provider's delivery receipts: no key, a URL signed for one send.
  await app.register(deliveryCallbackRoutes, { services });
  // Challenges authenticate per route: a secret key, or the hosted app's challenge token.
  await app.register(challengeRoutes, { services });
  // The server API: every route in this scope needs a secret key.
  await app.register(async (api) => {
    api.addHook("onRequest", requireSecret(services));
    api.addHook("onRoute", documentSecurity(SECURITY.secretKey));
    await api.register(evaluationRoutes, { services });
    await api.register(policyRoutes, { services });
    await api.register(listRoutes, { services });
    await api.register(webhookRoutes, { services });
    await api.register(deviceRoutes, { services });
    await api.register(userRoutes, { services });
    await api.register(legacyRoutes, { services });
    await api.register(evaluationSearchRoutes, { services });
    await api.register(userDirectoryRoutes, { services });
    await api.register(statsRoutes, { services });
    await api.register(backtestRoutes, { services });
    await api.register(auditLogRoutes, { services });
    await api.register(settingsRoutes, { services });
  });

  app.get("/", { schema: { hide: true } }, async (_req, reply) => reply.redirect(config.isDev ? "/demo/" : "/docs"));
  return app;
}
