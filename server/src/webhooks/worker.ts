// The webhook delivery worker (docs/webhooks.md): claims due deliveries from the outbox under a lease, POSTs them signed
// per Standard Webhooks, and records each outcome; retries with backoff, fails a delivery after its last attempt and
// disables an endpoint that failed every attempt of it. Each endpoint has its own lane (a few deliveries in flight, one
// while it fails), so a slow or dead receiver delays only its own deliveries. A crash leaves leases that expire as soon as the worker's own
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

/**
 * Deliveries in flight at once to one endpoint. Each endpoint has its own lane: a receiver that hangs holds at most
 * this many of the worker's sends, for its timeout, while every other endpoint's deliveries go on. (With one batch of
 * 20 awaited as a whole, one customer's hanging endpoint delayed another's deliveries from 0.1 s to 14–22 s.)
 */
export const PER_ENDPOINT = 4;
/** An endpoint whose last attempt failed gets one delivery at a time until one succeeds: a dead receiver costs one. */
const PER_FAILING_ENDPOINT = 1;
/** Deliveries in flight at once in this worker, all endpoints together (sockets and memory stay bounded). */
export const MAX_IN_FLIGHT = 64;
/** At stop, sends in flight get this long to finish before they are abandoned (their leases released, sent again later). */
const STOP_GRACE_MS = 2_000;
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
  private running: Promise<unknown> | undefined;
  private stopped = true;
  /** stop() was called: claim nothing more. */
  private stopping = false;
  private readonly transport: WebhookTransport;
  /** Deliveries being sent, per endpoint: an endpoint with one in flight is not claimed for until they end. */
  private readonly inFlight = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  /** Endpoints whose last attempt from this worker failed: one delivery at a time until one succeeds. */
  private readonly failing = new Set<string>();
  /** Aborts the POSTs still in flight when the worker stops. */
  private abandon = new AbortController();
  /** A claim round is running; `again`: a send ended meanwhile, claim once more after it. */
  private filling: Promise<number> | undefined;
  private again = false;

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
    if (this.abandon.signal.aborted) this.abandon = new AbortController();
    this.schedule(0);
  }

  /**
   * Stops claiming; sends in flight get a short grace, then are abandoned: their POSTs aborted and their leases
   * released, so that they are sent again (by another instance, or after a restart) instead of holding the stop for a
   * receiver's whole timeout.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.filling;
    if (this.sending.size) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.sending), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      this.abandon.abort();
      await Promise.all(this.sending);
    }
    this.transport.close();
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.fill()
        .catch((err) => this.log?.error({ err }, "webhook worker poll failed"))
        .finally(() => this.schedule(this.config.WEBHOOK_POLL_MS));
    }, ms);
    this.timer.unref?.();
  }

  /** A send ended: its endpoint's lane (and the worker's room) may take another delivery now, not at the next poll. */
  private poke(): void {
    if (this.stopped) return;
    void this.fill().catch((err) => this.log?.error({ err }, "webhook worker poll failed"));
  }

  /** Sends every due delivery, and waits for them, until none is due; answers how many attempts were made. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      total += await this.fill();
      if (this.sending.size === 0) {
        // A send that ended during the last claim round may have left room for more.
        if ((await this.fill()) === 0) return total;
        continue;
      }
      await Promise.race(this.sending);
    }
  }

  /**
   * Claims what is due, within each endpoint's lane and the worker's room, and starts sending it; does not wait for
   * the sends. One round at a time: a call during a round asks for one more after it. Answers how many it started.
   */
  private fill(): Promise<number> {
    if (this.filling) {
      this.again = true;
      return this.filling.then(() => 0);
    }
    this.filling = (async () => {
      let started = 0;
      do {
        this.again = false;
        started += await this.claimAndSend();
      } while (this.again && !this.stopped);
      return started;
    })().finally(() => {
      this.filling = undefined;
    });
    return this.filling;
  }

  private async claimAndSend(): Promise<number> {
    if (this.takeOver) {
      const released = await this.repos.webhooks.releaseLeases(this.owner, now());
      this.takeOver = false;
      if (released) this.log?.warn({ released }, "took over webhook deliveries leased by a stopped process");
    }
    let started = 0;
    for (;;) {
      const room = MAX_IN_FLIGHT - this.sending.size;
      if (room <= 0 || this.stopping) return started;
      const at = now();
      // The lease outlives the POST timeout by a margin, so a live worker never loses a delivery it is sending.
      const claimed = await this.repos.webhooks.claimDue(this.owner, at, at + this.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS, room, {
        perEndpoint: PER_ENDPOINT,
        room: this.laneRoom(),
      });
      if (claimed.length === 0) return started;
      // The events and the claim are committed before anyone hears of them.
      await this.repos.durable();
      for (const c of claimed) this.launch(c);
      started += claimed.length;
    }
  }

  /** How many more deliveries each endpoint with a narrower lane may have now (the others: PER_ENDPOINT). */
  private laneRoom(): Map<string, number> {
    const room = new Map<string, number>();
    for (const endpoint of new Set([...this.inFlight.keys(), ...this.failing])) {
      const lane = this.failing.has(endpoint) ? PER_FAILING_ENDPOINT : PER_ENDPOINT;
      room.set(endpoint, Math.max(0, lane - (this.inFlight.get(endpoint) ?? 0)));
    }
    return room;
  }

  private launch(c: ClaimedDelivery): void {
    const endpoint = c.delivery.endpoint_id;
    this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 0) + 1);
    const sent: Promise<void> = this.attempt(c)
      .catch((err) => this.log?.error({ err, delivery: c.delivery.id, endpoint }, "webhook delivery attempt failed to record"))
      .finally(() => {
        this.sending.delete(sent);
        const left = (this.inFlight.get(endpoint) ?? 1) - 1;
        if (left > 0) this.inFlight.set(endpoint, left);
        else this.inFlight.delete(endpoint);
        this.poke();
      });
    this.sending.add(sent);
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
      this.abandon.signal,
    );
    if ("aborted" in outcome) {
      // Abandoned at stop: not an attempt of the receiver's. The delivery is due again at once, for whoever runs next.
      await this.repos.webhooks.release(delivery.id, this.owner, now());
      return;
    }
    if ("error" in outcome) error = outcome.error;
    else {
      status = outcome.status;
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    }
    const at = now();
    const { webhooks } = this.repos;
    if (!error) {
      this.failing.delete(delivery.endpoint_id);
      this.onOutcome("succeeded");
      await webhooks.settle(delivery.id, this.owner, { status: "succeeded", attempts, at, last_status_code: status });
      await webhooks.endpointSucceeded(delivery.endpoint_id, at);
      return;
    }
    this.failing.add(delivery.endpoint_id);
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
