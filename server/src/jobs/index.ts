// Background workers of a server process (config WORKERS): webhook delivery, the job outbox (side effects after the
// response, e.g. the admin's account-sharing email), retention, recovery of interrupted code
// sends, pruning of expired velocity counters and the console's roll-ups. Several processes may run them at once on
// one PostgreSQL store; each is safe to run concurrently. Every failure is logged. Stopped by services.close().
import { recoverInterruptedSends, SEND_DEADLINE_MS } from "../challenges/recovery.js";
import type { Config } from "../config.js";
import { ROLLUP_EVERY_MS, ROLLUP_FIRST_MS, rollUp } from "../console/rollup-job.js";
import type { PrivacyService } from "../domain/privacy.js";
import type { Log } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { Store } from "../store/db.js";
import type { Repos } from "../store/repos.js";
import { type AccountSharingNotifier, ADMIN_EMAIL_JOB } from "../webhooks/account-sharing.js";
import { WebhookWorker } from "../webhooks/worker.js";
import { type JobDoorbell, type JobHandler, JobWorker } from "./outbox.js";
import { PeriodicJob } from "./periodic.js";

/** Every kind of job the outbox holds; a worker runs each with its handler (startWorkers). */
export const JOB_KINDS = [ADMIN_EMAIL_JOB] as const;

/** Records older than RETENTION_DAYS outlive it by at most this long. */
const RETENTION_EVERY_MS = 3600 * 1000;
/** First retention run shortly after start, not in the middle of it. */
const RETENTION_FIRST_MS = 10_000;
/** How soon an interrupted send is reported failed, at most, past its deadline. */
const SEND_RECOVERY_EVERY_MS = 60_000;
/** Velocity buckets leave their window within the hour; a sweep every ten minutes keeps the table to about that. */
const VELOCITY_PRUNE_EVERY_MS = 10 * 60 * 1000;

/** What the workers run on and with (services.ts passes its container, which has all of it). */
export interface WorkerServices {
  config: Config;
  log: Log;
  metrics: Metrics;
  store: Store;
  repos: Repos;
  accountSharing: AccountSharingNotifier;
  privacy: PrivacyService;
  jobDoorbell: JobDoorbell;
  /** Where the workers' stop is registered, to run before the store closes. */
  onClose: Array<() => Promise<void> | void>;
}

export function startWorkers(services: WorkerServices): { webhooks: WebhookWorker; outbox: JobWorker; jobs: PeriodicJob[] } {
  const { repos, config, log } = services;
  // On the embedded store this process is the only one: a lease or a send left pending was left by a process that
  // is gone (killed, crashed), so it is taken over at once instead of after its deadline.
  const alone = services.store.dialect === "sqlite";
  const webhooks = new WebhookWorker(repos, config, log.child({ job: "webhooks" }), {
    takeOverLeases: alone,
    onOutcome: (outcome) => services.metrics.webhookDeliveries.inc({ outcome }),
  });
  const handlers: Record<(typeof JOB_KINDS)[number], JobHandler> = {
    [ADMIN_EMAIL_JOB]: services.accountSharing.sendAdminEmail,
  };
  const outbox = new JobWorker(repos, handlers, services.jobDoorbell, log.child({ job: "outbox" }), { takeOverLeases: alone });
  const jobs = [
    new PeriodicJob(
      "retention",
      { firstMs: RETENTION_FIRST_MS, everyMs: RETENTION_EVERY_MS },
      () => services.privacy.prune(config.RETENTION_DAYS),
      log,
    ),
    new PeriodicJob(
      "interrupted-sends",
      { firstMs: 0, everyMs: SEND_RECOVERY_EVERY_MS },
      async (first) => {
        const at = Date.now();
        const recovered = await recoverInterruptedSends(repos, first && alone ? Number.POSITIVE_INFINITY : at - SEND_DEADLINE_MS, at);
        if (recovered) log.warn({ job: "interrupted-sends", recovered }, "code sends interrupted by a stop were marked failed");
        return { recovered };
      },
      log,
    ),
    new PeriodicJob(
      "velocity-counters",
      { firstMs: VELOCITY_PRUNE_EVERY_MS, everyMs: VELOCITY_PRUNE_EVERY_MS },
      async () => ({ pruned: await repos.history.pruneVelocity(Date.now()) }),
      log,
    ),
    // The console's overview reads hourly roll-ups of the evaluations (console/rollup-job.ts).
    new PeriodicJob(
      "evaluation-rollups",
      { firstMs: ROLLUP_FIRST_MS, everyMs: ROLLUP_EVERY_MS },
      async () => ({ hours: await rollUp(repos.evaluationStats, Date.now(), config.RETENTION_DAYS) }),
      log,
    ),
  ];
  webhooks.start();
  outbox.start();
  for (const j of jobs) j.start();
  services.onClose.push(async () => {
    // Stop and wait for in-flight attempts and runs before the store closes.
    await webhooks.stop();
    await outbox.stop();
    for (const j of jobs) await j.stop();
  });
  return { webhooks, outbox, jobs };
}
