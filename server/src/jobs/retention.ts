// The retention job (SPEC.md 5): evaluations and access records older than RETENTION_DAYS are pruned, shortly
// after start and then hourly, so a record outlives its retention by at most about an hour.
import type { PrivacyService } from "../domain/privacy.js";

const FIRST_RUN_MS = 10_000;
const INTERVAL_MS = 3600 * 1000;

export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly privacy: PrivacyService,
    private readonly days: number,
    private readonly log?: { warn(obj: unknown, msg?: string): void },
  ) {}

  start(): void {
    this.schedule(FIRST_RUN_MS);
  }

  private schedule(ms: number) {
    this.timer = setTimeout(() => {
      this.running = this.privacy
        .prune(this.days)
        .catch((err) => this.log?.warn({ err }, "retention prune failed"))
        .finally(() => this.schedule(INTERVAL_MS));
    }, ms);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
