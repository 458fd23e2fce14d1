import { toEventUser } from "../domain/users.js";
import type { AfterEvaluate, EventSink } from "../pipeline/evaluate.js";
import type { RateLimiter } from "../rate-limit/limiter.js";
import { riskLevels } from "../risks/index.js";
import { toWireDevice } from "../store/devices.js";
import type { Repos } from "../store/repos.js";

/** Sends one email to the project's admin; provided by the delivery area when a mail transport is configured. */
export interface AdminMailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

const RAISED = new Set(["high", "maximum"]);
/** At most one admin email per account per day (across instances): a shared account raises the risk on every request. */
const ADMIN_EMAIL_INTERVAL_MS = 24 * 3600 * 1000;

export class AccountSharingNotifier {
  /** Without a mailer no email goes out, so no `account_sharing.admin_notified` is emitted either. */
  mailer?: AdminMailer;

  constructor(
    private readonly repos: Repos,
    private readonly events: EventSink,
    /** Counts the admin emails per account, shared by every instance (a per-process count would send one each). */
    private readonly limiter: RateLimiter,
  ) {}

  readonly afterEvaluate: AfterEvaluate = async (result, input, identity, decision) => {
    const risk = decision.risks.find((r) => r.name === "account_sharing" && RAISED.has(r.severity));
    if (!risk || !input.user) return;
    const user = await this.repos.users.findByExternal(input.env.id, input.user);
    // A provisional user is not an account yet (SPEC.md 13): nothing to signal about its sharing.
    if (!user || user.provisional === 1) return;
    // A signal marks the rise: while the account stays shared, every evaluation carries the raised risk.
    const previous = await this.repos.evaluations.previousRisks(input.env.id, user.id, result.evaluation.id);
    const before = previous ? riskLevels(previous) : [];
    if (before.some((r) => r.name === "account_sharing" && RAISED.has(r.severity))) return;
    const deviceRow = identity.device?.row;
    const data = {
      account: user.external_id,
      user: toEventUser(user),
      ...(deviceRow ? { device: toWireDevice(deviceRow, user.external_id) } : {}),
    };
    await this.inTx(() => this.events.emit(input.env.id, "account_sharing.signal", data));

    const admin = input.env.settings.admin_email;
    if (!this.mailer || !admin) return;
    const { allowed } = await this.limiter.hit(`admin-email:${input.env.id}:${user.id}`, 1, ADMIN_EMAIL_INTERVAL_MS);
    if (!allowed) return;
    await this.repos.durable();
    await this.mailer.send({
      to: admin,
      subject: `[${input.env.projectName}] Account ${user.external_id} looks shared`,
      text:
        `Tessera rated the account-sharing risk of account ${user.external_id} ${risk.severity} (score ${risk.score}) ` +
        `in evaluation ${result.evaluation.id}.\nIndicators: ${risk.indicators.join(", ") || "none"}.\n`,
    });
    await this.inTx(() => this.events.emit(input.env.id, "account_sharing.admin_notified", { ...data, admin_email: admin }));
  };

  private inTx(fn: () => Promise<void>): Promise<void> {
    return this.repos.transaction(fn);
  }
}
