// The services container: configuration, store, repositories and the domain services built on them.
// Built once per process by createServices; the Fastify app and the CLI both use it.
import { randomBytes } from "node:crypto";
import { ChallengeService } from "./challenges/service.js";
import { ChallengeTokens } from "./challenges/tokens.js";
import { type Config } from "./config.js";
import { createCodeDelivery } from "./delivery/index.js";
import { openStore, type Store } from "./store/db.js";
import { migrate } from "./store/migrations/index.js";
import { createRepos, type Repos } from "./store/repos.js";
import { EvaluationsService } from "./domain/evaluations.js";
import { Pipeline } from "./pipeline/evaluate.js";

export interface Services {
  config: Config;
  store: Store;
  repos: Repos;
  pipeline: Pipeline;
  evaluationsService: EvaluationsService;
  challenges: ChallengeService;
  challengeTokens: ChallengeTokens;
  /** Background work started by the server (workers) and stopped on close. */
  onClose: Array<() => Promise<void> | void>;
  close(): Promise<void>;
}

export async function createServices(config: Config, opts: { migrate?: boolean } = {}): Promise<Services> {
  const store = openStore({ databaseUrl: config.DATABASE_URL, sqlitePath: config.sqlitePath, poolSize: config.DATABASE_POOL_SIZE });
  if (opts.migrate !== false) await migrate(store.db);
  const repos = createRepos(store);
  const pipeline = new Pipeline(repos);
  // The token secret is shared by every instance on one store: from config, else generated once and kept.
  const tokenSecret = config.CHALLENGE_TOKEN_SECRET ?? (await repos.projects.setting("challenge_token_secret", () => randomBytes(32).toString("base64url")));
  const challengeTokens = new ChallengeTokens(tokenSecret);
  const delivery = createCodeDelivery(config);
  const challenges = new ChallengeService(repos, config, challengeTokens, delivery, () => pipeline.events);
  pipeline.challenges = challenges;
  const evaluationsService = new EvaluationsService(repos);
  evaluationsService.challengeSummary = (id) => challenges.summary(id);
  const services: Services = {
    config,
    store,
    repos,
    pipeline,
    evaluationsService,
    challenges,
    challengeTokens,
    onClose: [() => delivery.close()],
    async close() {
      for (const fn of services.onClose.reverse()) await fn();
      await store.close();
    },
  };
  return services;
}
