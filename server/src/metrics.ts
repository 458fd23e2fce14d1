// Metrics of one server process (docs/operations.md), in the Prometheus text format through prom-client: evaluations by action
// and verdict with their latency, challenge sends, verifications and outcomes as the API answered them, webhook
// deliveries by outcome and the outbox's depth, store errors, and Node's process metrics. One registry per process
// (per createServices), served by routes/metrics.ts.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The actions the API names (docs/client-api.md); custom ones get their own label up to a bound. */
const KNOWN_ACTIONS = new Set(["login", "signup", "access"]);
/**
 * Custom action names come from the browser too (/v3/client/evaluate/:action): an attacker could mint a label per
 * request and grow every series set without bound. The first ones seen keep their names; later ones count as "other".
 */
const MAX_CUSTOM_ACTIONS = 50;

/** Seconds; evaluations take milliseconds, a slow store seconds (the statement timeout is 10 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type WebhookOutcome = "succeeded" | "retry" | "failed";

export class Metrics {
  readonly registry = new Registry();
  private readonly customActions = new Set<string>();

  readonly evaluations = new Counter({
    name: "tessera_evaluations_total",
    help: "Evaluations answered, by action, verdict and source (client: the browser SDK; server: a backend)",
    labelNames: ["action", "verdict", "source"] as const,
    registers: [this.registry],
  });
  readonly evaluationDuration = new Histogram({
    name: "tessera_evaluation_duration_seconds",
    help: "Time to answer an evaluation request, from its arrival to the response",
    labelNames: ["source"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly challengeSends = new Counter({
    name: "tessera_challenge_sends_total",
    help: "Challenge code sends, by channel and outcome (sent, delivered, failed: the provider refused; refused: the API refused the send)",
    labelNames: ["channel", "outcome"] as const,
    registers: [this.registry],
  });
  readonly challengeVerifications = new Counter({
    name: "tessera_challenge_verifications_total",
    help: "Challenge code verifications, by outcome (verified, invalid_code, code_expired, too_many_attempts, refused)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly challengeOutcomes = new Counter({
    name: "tessera_challenge_outcomes_total",
    help: "Challenges ended through the API, by outcome (completed, skipped, failed: too many wrong codes)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: "tessera_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome (succeeded; retry: failed, will be retried; failed: failed for good)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly storeErrors = new Counter({
    name: "tessera_store_errors_total",
    help: "Errors raised by the store (queries and connections), by SQLSTATE, SQLite or socket code",
    labelNames: ["code"] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The outbox's depth, read from the store at each scrape (an indexed count). */
  webhookQueueDepth(read: () => Promise<number>): void {
    new Gauge({
      name: "tessera_webhook_queue_depth",
      help: "Webhook deliveries waiting to be sent (pending, including those waiting for a retry)",
      registers: [this.registry],
      async collect() {
        // A store that cannot answer reads as NaN (unknown); the scrape itself still answers, with the store errors.
        this.set(await read().catch(() => Number.NaN));
      },
    });
  }

  /** The label of an action: its own name for the first custom actions seen, "other" past the bound. */
  actionLabel(action: string): string {
    if (KNOWN_ACTIONS.has(action) || this.customActions.has(action)) return action;
    if (this.customActions.size < MAX_CUSTOM_ACTIONS) {
      this.customActions.add(action);
      return action;
    }
    return "other";
  }
}
