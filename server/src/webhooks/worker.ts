// The webhook delivery worker (SPEC.md 9): claims due deliveries from the outbox under a lease, POSTs them signed
// per Standard Webhooks, and records each outcome; retries with backoff, fails a delivery after its last attempt and
// disables an endpoint that failed every attempt of it. A crash leaves leases that expire, so nothing is lost.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { Config } from "../config.js";
import type { Repos } from "../store/repos.js";
import type { ClaimedDelivery } from "../store/webhooks.js";
import { now } from "../time.js";
import { retryDelay } from "./backoff.js";

type WorkerConfig = Pick<Config, "WEBHOOK_RETRY_BASE_MS" | "WEBHOOK_MAX_ATTEMPTS" | "WEBHOOK_POLL_MS" | "WEBHOOK_TIMEOUT_MS">;
type Log = { warn(obj: unknown, msg?: string): void };

/** Deliveries claimed per poll. */
const BATCH = 20;

export class WebhookWorker {
  /** Identifies this worker's leases. */
  readonly owner = `wkr_${randomBytes(9).toString("base64url")}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private stopping = false;

  constructor(
    private readonly repos: Repos,
    private readonly config: WorkerConfig,
    private readonly log?: Log,
  ) {}

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
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .then(() => undefined)
        .catch((err) => this.log?.warn({ err }, "webhook worker poll failed"))
        .finally(() => this.schedule(this.config.WEBHOOK_POLL_MS));
    }, ms);
    this.timer.unref?.();
  }

  /** Sends every due delivery (batch after batch) and answers how many attempts were made. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const at = now();
      // The lease outlives the POST timeout with a margin, so a live worker never loses a delivery it is sending.
      const claimed = await this.repos.webhooks.claimDue(this.owner, at, at + this.config.WEBHOOK_TIMEOUT_MS + 30_000, BATCH);
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
    try {
      const headers = this.sign(c);
      const res = await fetch(c.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Tessera-Webhooks/1", ...headers },
        body: c.payload,
        redirect: "manual",
        signal: AbortSignal.timeout(this.config.WEBHOOK_TIMEOUT_MS),
      });
      status = res.status;
      await res.body?.cancel().catch(() => {});
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (e) {
      const err = e as Error;
      error =
        err.name === "TimeoutError"
          ? `timeout after ${this.config.WEBHOOK_TIMEOUT_MS} ms`
          : `${err.message}${(err.cause as Error | undefined)?.message ? `: ${(err.cause as Error).message}` : ""}`;
    }
    const at = now();
    const { webhooks } = this.repos;
    if (!error) {
      await webhooks.settle(delivery.id, this.owner, { status: "succeeded", attempts, at, last_status_code: status });
      await webhooks.endpointSucceeded(delivery.endpoint_id, at);
      return;
    }
    const failures = await webhooks.endpointFailed(delivery.endpoint_id, at);
    const max = this.config.WEBHOOK_MAX_ATTEMPTS;
    if (attempts >= max) {
      await webhooks.settle(delivery.id, this.owner, { status: "failed", attempts, at, last_status_code: status, last_error: error });
      // Failed for a whole retry schedule without a single success meanwhile: stop sending to it until fixed.
      if (failures >= max) {
        await webhooks.disableEndpoint(
          delivery.endpoint_id,
          `Disabled after ${failures} consecutive failed delivery attempts (last: ${error}); re-send a delivery to enable it again`,
          at,
        );
      }
      return;
    }
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
