// Background workers of a server process (config WORKERS): webhook delivery and retention. Several processes may
// run them at once on one PostgreSQL store; both are safe to run concurrently. Stopped by services.close().
import type { Services } from "../services.js";
import { WebhookWorker } from "../webhooks/worker.js";
import { RetentionJob } from "./retention.js";

export function startWorkers(services: Services): { webhooks: WebhookWorker; retention: RetentionJob } {
  const webhooks = new WebhookWorker(services.repos, services.config);
  const retention = new RetentionJob(services.privacy, services.config.RETENTION_DAYS);
  webhooks.start();
  retention.start();
  services.onClose.push(async () => {
    // Stop and wait for in-flight attempts before the store closes.
    await webhooks.stop();
    await retention.stop();
  });
  return { webhooks, retention };
}
