// The services container: configuration, store, repositories and the domain services built on them.
// Built once per process by createServices; the Fastify app and the CLI both use it.
import { type Config } from "./config.js";
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
  /** Background work started by the server (workers) and stopped on close. */
  onClose: Array<() => Promise<void> | void>;
  close(): Promise<void>;
}

export async function createServices(config: Config, opts: { migrate?: boolean } = {}): Promise<Services> {
  const store = openStore({ databaseUrl: config.DATABASE_URL, sqlitePath: config.sqlitePath, poolSize: config.DATABASE_POOL_SIZE });
  if (opts.migrate !== false) await migrate(store.db);
  const repos = createRepos(store);
  const pipeline = new Pipeline(repos);
  const services: Services = {
    config,
    store,
    repos,
    pipeline,
    evaluationsService: new EvaluationsService(repos),
    onClose: [],
    async close() {
      for (const fn of services.onClose.reverse()) await fn();
      await store.close();
    },
  };
  return services;
}
