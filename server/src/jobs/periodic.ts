// A background job run on a timer, one run at a time: the next run is scheduled when the previous one has ended, so a
// slow run never overlaps itself. A failure is logged (background jobs log their failures; docs/operations.md) and the job
// carries on at its next turn. Stopped by services.close(), which waits for a run in progress.
import type { Log } from "../log.js";

export interface PeriodicJobOptions {
  /** Delay before the first run (0: at once). */
  firstMs: number;
  everyMs: number;
}

export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    readonly name: string,
    private readonly opts: PeriodicJobOptions,
    /** `first`: this is the run at start. Answers what was done, logged at debug level. */
    private readonly run: (first: boolean) => Promise<unknown>,
    private readonly log: Log,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.opts.firstMs, true);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number, first: boolean): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run(first)
        .then((result) => this.log.debug({ job: this.name, result }, "job done"))
        .catch((err) => this.log.error({ job: this.name, err }, "job failed"))
        .finally(() => this.schedule(this.opts.everyMs, false));
    }, ms);
    this.timer.unref?.();
  }
}
