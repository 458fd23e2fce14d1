// The services container: configuration, store, repositories and the domain services built on them.
// Built once per process by createServices; the Fastify app and the CLI both use it.
import { randomBytes } from "node:crypto";
import type { DestinationStream } from "pino";
import { ChallengeService } from "./challenges/service.js";
import { ChallengeTokens } from "./challenges/tokens.js";
import type { Config } from "./config.js";
import { auditContactChanges } from "./console/audit.js";
import { OperatorsService } from "./console/operators.js";
import { createCodeDelivery } from "./delivery/index.js";
import { DevicesService } from "./domain/devices.js";
import { EnvironmentsService } from "./domain/environments.js";
import { EvaluationsService } from "./domain/evaluations.js";
import { LegacyService } from "./domain/legacy.js";
import { ListsService } from "./domain/lists.js";
import { PoliciesService } from "./domain/policies.js";
import { PrivacyService } from "./domain/privacy.js";
import { UsersService } from "./domain/users.js";
import { IdentityVerification } from "./identity-verification/index.js";
import { JOB_KINDS, startWorkers } from "./jobs/index.js";
import { JobDoorbell, OutboxJobs } from "./jobs/outbox.js";
import { createLogger, type Log } from "./log.js";
import { Metrics } from "./metrics.js";
import { accountEmailKey } from "./pipeline/account-email.js";
import { Pipeline } from "./pipeline/evaluate.js";
import { createRateLimiter, type RateLimiter } from "./rate-limit/limiter.js";
import { deriveServerKeys, newMasterKey, type ServerKeys } from "./secrets.js";
import { checkPostgresDurability, openStore, postgresAutovacuumOff, type Store } from "./store/db.js";
import { storeErrorCode } from "./store/errors.js";
import { migrate } from "./store/migrations/index.js";
import { createRepos, type Repos } from "./store/repos.js";
import { AccountSharingNotifier } from "./webhooks/account-sharing.js";
import { createAdminMailer } from "./webhooks/admin-mailer.js";
import { WebhookEndpointsService } from "./webhooks/endpoints.js";
import { OutboxSink } from "./webhooks/sink.js";

export interface Services {
  config: Config;
  /** The process's logger: the access log and the background jobs write through it. */
  log: Log;
  /** The process's metrics (GET /metrics). */
  metrics: Metrics;
  store: Store;
  repos: Repos;
  pipeline: Pipeline;
  evaluationsService: EvaluationsService;
  /** The environment a secret key, a client id or a challenge link acts in (the HTTP layer's authentication). */
  environments: EnvironmentsService;
  policies: PoliciesService;
  lists: ListsService;
  /** The legacy /v2 API's access history and identification completion. */
  legacy: LegacyService;
  /** Shared rate limiter (PostgreSQL; on the embedded store its file, and memory for per-minute limits): client API, challenges. */
  rateLimiter: RateLimiter;
  /** Keys derived from SERVER_KEY (or the store's generated master key): code hashes, sealed identity secrets. */
  keys: ServerKeys;
  challenges: ChallengeService;
  challengeTokens: ChallengeTokens;
  /** Backend-signed user tokens for client calls (docs/security.md), and the environments' identity secrets. */
  identity: IdentityVerification;
  /** The webhook outbox: `events.emit(environmentId, event, data)` inside the transaction of the change. */
  events: OutboxSink;
  webhookEndpoints: WebhookEndpointsService;
  devices: DevicesService;
  users: UsersService;
  /** User erasure and retention; other areas' erasers are given to it here. */
  privacy: PrivacyService;
  accountSharing: AccountSharingNotifier;
  /** Console operators, their sign-in and sessions (docs/console.md). */
  operators: OperatorsService;
  /** Rung when a transaction that enqueued a job commits: the job worker (jobs/index.ts) listens. */
  jobDoorbell: JobDoorbell;
  /**
   * Gives up every code send and admin email still waiting for the mail server or SMS provider (the server is stopping:
   * server.ts). Their requests answer 503 and the sends are recovered (challenges/recovery.ts). close() does it too.
   */
  abandonSends(): void;
  /** Background work started by the server (workers) and stopped on close. */
  onClose: Array<() => Promise<void> | void>;
  close(): Promise<void>;
}

/**
 * `groupCommit` (default on): the embedded store commits each event-loop turn's transactions together, and the app
 * waits for `store.durable()` before answering. One-off commands turn it off so each write is committed at once.
 */
export async function createServices(
  config: Config,
  opts: { migrate?: boolean; groupCommit?: boolean; logDestination?: DestinationStream } = {},
): Promise<Services> {
  const log = createLogger(config, opts.logDestination);
  const metrics = new Metrics();
  const store = openStore({
    databaseUrl: config.DATABASE_URL,
    sqlitePath: config.sqlitePath,
    poolSize: config.DATABASE_POOL_SIZE,
    timeouts: {
      connectMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      idleMs: config.DATABASE_IDLE_TIMEOUT_MS,
    },
    groupCommit: opts.groupCommit ?? true,
    durability: config.DURABILITY,
    onError: (err) => metrics.storeErrors.inc({ code: storeErrorCode(err) }),
  });
  if (opts.migrate !== false) await migrate(store.db);
  if (config.DURABILITY === "power" && store.dialect === "postgres") await checkPostgresDurability(store.db);
  if (!config.isDev && store.dialect === "postgres" && (await postgresAutovacuumOff(store.db)))
    log.warn(
      "PostgreSQL runs with autovacuum=off: nothing refreshes the tables' statistics, and the plans each connection made while the tables were small stay (a lookup by visitor token read every device of the environment). Turn autovacuum on, or run ANALYZE once the tables have grown and then regularly",
    );
  const repos = createRepos(store, { accountEmailKey });
  const rateLimiter = createRateLimiter(store);
  // The token secret is shared by every instance on one store: from config, else generated once and kept.
  const tokenSecret =
    config.CHALLENGE_TOKEN_SECRET ?? (await repos.projects.setting("challenge_token_secret", () => randomBytes(32).toString("base64url")));
  const challengeTokens = new ChallengeTokens(tokenSecret);
  const keys = deriveServerKeys(config.SERVER_KEY ?? (await repos.projects.setting("server_key", newMasterKey)));
  // Aborted when the process stops (abandonSends): sends still waiting on a mail server or SMS provider give up.
  const stopping = new AbortController();
  const delivery = createCodeDelivery(config, undefined, stopping.signal);
  const adminMailer = createAdminMailer(config, stopping.signal);
  // Each service receives what it needs here, in dependency order: the outboxes first, the pipeline last.
  const events = new OutboxSink(repos);
  const jobDoorbell = new JobDoorbell();
  const jobs = new OutboxJobs(repos, JOB_KINDS, jobDoorbell);
  const devices = new DevicesService(repos, events);
  const users = new UsersService(repos, events);
  const challenges = new ChallengeService(
    repos,
    config,
    challengeTokens,
    delivery,
    events,
    (envId, deviceId) => devices.detach(envId, deviceId, { logout: true }),
    (m) => users.markConversionIntent(m),
    keys,
    rateLimiter,
  );
  const accountSharing = new AccountSharingNotifier(repos, events, jobs, rateLimiter, adminMailer);
  // The consequences of an evaluation for other areas, run in its transaction (their events and jobs commit with it).
  const pipeline = new Pipeline(repos, challenges, [accountSharing.onEvaluation, users.onEvaluation, auditContactChanges(repos)]);
  const evaluationsService = new EvaluationsService(repos, (id) => challenges.summary(id));
  const privacy = new PrivacyService(repos, [
    async (ctx) => ({ challenges: await repos.challenges.eraseForUser(ctx.environmentId, ctx.userId) }),
  ]);
  const services: Services = {
    config,
    log,
    metrics,
    store,
    repos,
    pipeline,
    rateLimiter,
    keys,
    identity: new IdentityVerification(repos.projects, keys.sealing),
    evaluationsService,
    environments: new EnvironmentsService(repos.projects),
    policies: new PoliciesService(repos, config),
    lists: new ListsService(repos),
    legacy: new LegacyService(repos),
    challenges,
    challengeTokens,
    events,
    webhookEndpoints: new WebhookEndpointsService(repos, config),
    devices,
    users,
    privacy,
    accountSharing,
    operators: new OperatorsService(repos, config, rateLimiter),
    jobDoorbell,
    onClose: [() => delivery.close()],
    abandonSends: () => stopping.abort(),
    async close() {
      stopping.abort();
      for (const fn of services.onClose.reverse()) await fn();
      await store.close();
    },
  };
  services.onClose.push(() => rateLimiter.close());
  if (adminMailer) services.onClose.push(() => adminMailer.close());
  metrics.webhookQueueDepth(() => repos.webhooks.pendingCount());
  if (config.WORKERS) startWorkers(services);
  return services;
}
