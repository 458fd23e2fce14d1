// The job outbox: side effects of a change (an email to the project's admin) are written as a job in the change's
// transaction (`OutboxJobs.enqueue`) and run after it commits, outside the request, by `JobWorker`. Nothing waits for
// them before answering; a process that stops before a job ran leaves it in the store, and the next worker runs it
// (at once after a restart). A job runs at least once: a stop between its effect and its deletion repeats it. A failed
// attempt is logged and retried later; after the last one the job is logged as given up and dropped.
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { JobQueue } from "../pipeline/ports.js";
import type { Repos } from "../store/repos.js";
import { retryDelay } from "../webhooks/backoff.js";

/** Runs one job; throws to have it retried. */
export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

/** Rings the worker of this process when a transaction that enqueued a job has committed. */
export class JobDoorbell {
  private readonly listeners = new Set<() => void>();
  ring(): void {
    for (const l of this.listeners) l();
  }
  listen(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export class OutboxJobs implements JobQueue {
  constructor(
    private readonly repos: Repos,
    /** The kinds a worker knows how to run: an unknown kind is a bug at the call, not a job that fails for ever. */
    private readonly kinds: readonly string[],
    private readonly doorbell: JobDoorbell,
  ) {}

  /** Records the job in the current transaction; the worker is rung once it has committed. */
  async enqueue(kind: string, payload: Record<string, unknown>): Promise<void> {
    if (!this.kinds.includes(kind)) throw new Error(`Unknown job kind ${kind}`);
    await this.repos.jobs.insert(kind, payload, Date.now());
    this.repos.afterCommit(() => this.doorbell.ring());
  }
}

/** Jobs claimed per round. */
const BATCH = 20;
/** A job's run (an SMTP send) ends well within this; a worker killed mid-run holds the job this long at most. */
const LEASE_MS = 60_000;
/** Jobs enqueued by another instance, or whose ring was missed, are found by this poll. */
export const JOB_POLL_MS = 5_000;
/** Attempts before a job is given up: with a 30 s base, the last retry comes about 40 minutes after the first. */
export const JOB_MAX_ATTEMPTS = 5;
const RETRY_BASE_MS = 30_000;

export class JobWorker {
  readonly owner = `job_${randomBytes(9).toString("base64url")}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private unlisten: (() => void) | undefined;
  private takeOver: boolean;

  constructor(
    private readonly repos: Repos,
    private readonly handlers: Readonly<Record<string, JobHandler>>,
    private readonly doorbell: JobDoorbell,
    private readonly log: Pick<Logger, "warn" | "error">,
    /** `takeOverLeases`: this process is the only one (the embedded store): leases of another owner are stale. */
    opts: { takeOverLeases?: boolean; pollMs?: number } = {},
  ) {
    this.takeOver = opts.takeOverLeases ?? false;
    this.pollMs = opts.pollMs ?? JOB_POLL_MS;
  }

  private readonly pollMs: number;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unlisten = this.doorbell.listen(() => this.poke());
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Runs due jobs now (or right after the round in progress). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.drain()
        .then(() => undefined)
        .catch((err) => this.log.error({ job: "outbox", err }, "job outbox round failed"))
        .finally(() => {
          this.running = undefined;
          const again = this.again;
          this.again = false;
          this.schedule(again ? 0 : this.pollMs);
        });
    }, ms);
    this.timer.unref?.();
  }

  /** One round: runs every due job; answers how many ran. */
  async drain(): Promise<number> {
    if (this.takeOver) {
      this.takeOver = false;
      await this.repos.jobs.releaseLeases(this.owner);
    }
    let ran = 0;
    for (;;) {
      const at = Date.now();
      const jobs = await this.repos.jobs.claimDue(this.owner, at, at + LEASE_MS, BATCH);
      if (jobs.length === 0) break;
      // The transaction that wrote them may sit in the embedded store's commit batch: nothing leaves before it is durable.
      await this.repos.durable();
      for (const job of jobs) {
        await this.runOne(job);
        ran++;
      }
      if (jobs.length < BATCH || this.stopped) break;
    }
    return ran;
  }

  private async runOne(job: { id: string; kind: string; payload: string; attempts: number }): Promise<void> {
    const handler = this.handlers[job.kind];
    try {
      if (!handler) throw new Error(`No handler for job kind ${job.kind}`);
      await handler(JSON.parse(job.payload) as Record<string, unknown>);
      await this.repos.jobs.done(job.id, this.owner);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (job.attempts >= JOB_MAX_ATTEMPTS) {
        this.log.error({ job: job.kind, id: job.id, attempts: job.attempts, err }, "job given up after its last attempt");
        await this.repos.jobs.done(job.id, this.owner);
        return;
      }
      const delay = retryDelay(job.attempts, RETRY_BASE_MS);
      this.log.warn({ job: job.kind, id: job.id, attempts: job.attempts, retryInMs: delay, err }, "job failed; will retry");
      await this.repos.jobs.retryAt(job.id, this.owner, Date.now() + delay, error);
    }
  }
}
