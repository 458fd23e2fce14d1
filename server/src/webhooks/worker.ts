// The webhook delivery worker (SPEC.md 9): claims due deliveries from the outbox under a lease, POSTs them signed
// per Standard Webhooks, and records each outcome; retries with backoff, fails a delivery after its last attempt and
// disables an endpoint that failed every attempt of it. A crash leaves leases that expire as soon as the worker's own
// timeout would have ended the attempt, so nothing is lost or held for long. Every failure is logged.
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { Webhook } from "standardwebhooks";
import type { Config } from "../config.js";
import type { WebhookOutcome } from "../metrics.js";
import type { Repos } from "../store/repos.js";
import type { ClaimedDelivery } from "../store/webhooks.js";
import { now } from "../time.js";
import { retryDelay } from "./backoff.js";
import { privateAddressesBlocked } from "./endpoints.js";
import { createWebhookTransport, type WebhookTransport } from "./transport.js";

type WorkerConfig = Pick<
  Config,
  "WEBHOOK_RETRY_BASE_MS" | "WEBHOOK_MAX_ATTEMPTS" | "WEBHOOK_POLL_MS" | "WEBHOOK_TIMEOUT_MS" | "WEBHOOK_ALLOW_PRIVATE" | "isDev"
>;
type Log = Pick<Logger, "warn" | "error">;

/** Deliveries claimed per poll. */
const BATCH = 20;
/**
 * A lease lasts the POST's timeout plus this: time to commit the claim before sending and to record the outcome
 * after. A worker killed mid-send holds its deliveries that long at most (it was 30 s past the timeout: a killed
 * worker's deliveries waited 40 s for another).
 */
export const LEASE_MARGIN_MS = 5_000;

export class WebhookWorker {
  /** Identifies this worker's leases. */
  readonly owner = `wkr_${randomBytes(9).toString("base64url")}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private stopping = false;
  private readonly transport: WebhookTransport;

  /** Leases left by another owner are released at the first poll (set when no other process can be sending). */
  private takeOver: boolean;
  private readonly onOutcome: (outcome: WebhookOutcome) => void;

  constructor(
    private readonly repos: Repos,
    private readonly config: WorkerConfig,
    private readonly log?: Log,
    /** `onOutcome`: told each attempt's outcome (metrics). */
    opts: { takeOverLeases?: boolean; onOutcome?: (outcome: WebhookOutcome) => void } = {},
  ) {
    this.transport = createWebhookTransport({ blockPrivate: privateAddressesBlocked(config), timeoutMs: config.WEBHOOK_TIMEOUT_MS });
    this.takeOver = opts.takeOverLeases ?? false;
    this.onOutcome = opts.onOutcome ?? (() => {});
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.transport.close();
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .then(() => undefined)
        .catch((err) => this.log?.error({ err }, "webhook worker poll failed"))
        .finally(() => this.schedule(this.config.WEBHOOK_POLL_MS));
    }, ms);
    this.timer.unref?.();
  }

  /** Sends every due delivery (batch after batch) and answers how many attempts were made. */
  async drain(): Promise<number> {
    if (this.takeOver) {
      const released = await this.repos.webhooks.releaseLeases(this.owner, now());
      this.takeOver = false;
      if (released) this.log?.warn({ released }, "took over webhook deliveries leased by a stopped process");
    }
    let total = 0;
    for (;;) {
      const at = now();
      // The lease outlives the POST timeout by a margin, so a live worker never loses a delivery it is sending.
      const claimed = await this.repos.webhooks.claimDue(this.owner, at, at + this.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS, BATCH);
      if (claimed.length === 0) break;
      // The events and the claim are committed before anyone hears of them.
      await this.repos.durable();
      await Promise.all(claimed.map((c) => this.attempt(c)));
      total += claimed.length;
      if (this.stopping) break;
    }
    return total;
  }

  private async attempt(c: ClaimedDelivery): Promise<void> {
    const { delivery } = c;
    const attempts = delivery.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    const outcome = await this.transport.post(
      c.url,
      { "content-type": "application/json", "user-agent": "Tessera-Webhooks/1", ...this.sign(c) },
      c.payload,
    );
    if ("error" in outcome) error = outcome.error;
    else {
      status = outcome.status;
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    }
    const at = now();
    const { webhooks } = this.repos;
    if (!error) {
      this.onOutcome("succeeded");
      await webhooks.settle(delivery.id, this.owner, { status: "succeeded", attempts, at, last_status_code: status });
      await webhooks.endpointSucceeded(delivery.endpoint_id, at);
      return;
    }
    const failures = await webhooks.endpointFailed(delivery.endpoint_id, at);
    const max = this.config.WEBHOOK_MAX_ATTEMPTS;
    // The endpoint and delivery ids only: the URL may carry a customer's token.
    const about = { delivery: delivery.id, endpoint: delivery.endpoint_id, event: delivery.event, attempts, error };
    if (attempts >= max) {
      this.log?.error(about, "webhook delivery failed for good");
      this.onOutcome("failed");
      await webhooks.settle(delivery.id, this.owner, { status: "failed", attempts, at, last_status_code: status, last_error: error });
      // Failed for a whole retry schedule without a single success meanwhile: stop sending to it until fixed.
      if (failures >= max) {
        this.log?.error({ endpoint: delivery.endpoint_id, failures }, "webhook endpoint disabled");
        await webhooks.disableEndpoint(
          delivery.endpoint_id,
          `Disabled after ${failures} consecutive failed delivery attempts (last: ${error}); re-send a delivery to enable it again`,
          at,
        );
      }
      return;
    }
    this.log?.warn(about, "webhook delivery attempt failed");
    this.onOutcome("retry");
    await webhooks.settle(delivery.id, this.owner, {
      status: "pending",
      attempts,
      at,
      next_attempt_at: at + retryDelay(attempts, this.config.WEBHOOK_RETRY_BASE_MS),
      last_status_code: status,
      last_error: error,
    });
  }

  private sign(c: ClaimedDelivery): Record<string, string> {
    const date = new Date();
    const msgId = c.delivery.event_id;
    const signature = new Webhook(c.secret).sign(msgId, date, c.payload);
    return { "webhook-id": msgId, "webhook-timestamp": String(Math.floor(date.getTime() / 1000)), "webhook-signature": signature };
  }
}
