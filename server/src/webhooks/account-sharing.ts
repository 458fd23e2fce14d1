// Account-sharing events (docs/webhooks.md): `account_sharing.signal` when an evaluation's account-sharing risk rises to
// high or maximum (from below, in the user's previous evaluation it was measured on: a session of the account's, not a
// stranger naming it, risks/table.ts), written in the evaluation's transaction; and
// `account_sharing.admin_notified` once the project's admin has actually been emailed about it — the email is a job
// of that same transaction (jobs/outbox.ts), sent after the response.
import { toEventUser } from "../domain/users.js";
import type { EvaluationStep, EventSink, JobQueue } from "../pipeline/ports.js";
import type { RateLimiter } from "../rate-limit/limiter.js";
import { measuredOn, riskLevels } from "../risks/index.js";
import type { Repos } from "../store/repos.js";
import { toWireDevice } from "../wire/devices.js";

/** Sends one email to the project's admin; provided by the delivery area when a mail transport is configured. */
export interface AdminMailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

/** The job that emails the project's admin about a rise (its payload: AdminEmailJob). */
export const ADMIN_EMAIL_JOB = "account_sharing.admin_email";

interface AdminEmailJob {
  environmentId: string;
  userId: string;
  to: string;
  subject: string;
  text: string;
  /** The payload of the `account_sharing.admin_notified` event emitted once the email is sent. */
  event: Record<string, unknown>;
}

const RAISED = new Set(["high", "maximum"]);
/**
 * The user's evaluations read back to find the previous one the risk was measured on. Strangers' page views naming the
 * account between two of its sessions are not measured; more of them than this in a row makes the next rise a new one.
 */
const LOOK_BACK = 10;
/** At most one admin email per account per day (across instances): a shared account raises the risk on every request. */
const ADMIN_EMAIL_INTERVAL_MS = 24 * 3600 * 1000;

export class AccountSharingNotifier {
  constructor(
    private readonly repos: Repos,
    private readonly events: EventSink,
    private readonly jobs: JobQueue,
    /** Counts the admin emails per account, shared by every instance (a per-process count would send one each). */
    private readonly limiter: RateLimiter,
    /** Without a mailer no email goes out, so no `account_sharing.admin_notified` is emitted either. */
    private readonly mailer: AdminMailer | undefined,
  ) {}

  /** Pipeline step, in the evaluation's transaction: signal a rise and leave the admin's email to the job outbox. */
  readonly onEvaluation: EvaluationStep = async (result, input, identity, decision) => {
    const risk = decision.risks.find((r) => r.name === "account_sharing" && RAISED.has(r.severity));
    if (!risk || !input.user) return;
    const user = await this.repos.users.findByExternal(input.env.id, input.user);
    // A provisional user is not an account yet (docs/identity.md): nothing to signal about its sharing.
    if (!user || user.provisional === 1) return;
    // A signal marks the rise: while the account stays shared, every evaluation of its sessions carries the raised
    // risk (the risk is measured only on those: a stranger naming the account in between is low and no fall).
    // The newest evaluation first, alone: it is nearly always the one measured (a session's previous request), and the
    // ten read at once were ~25 KB of checks and risks copied out of the store per evaluation of a shared account.
    const measured = (r: { risks: string | null; checks: string | null }) =>
      !!r.risks && !!r.checks && measuredOn("account_sharing", JSON.parse(r.checks));
    const newest = await this.repos.evaluations.recentRisks(input.env.id, user.id, result.id, 1);
    let previous = newest.find(measured);
    if (!previous && newest.length > 0)
      previous = (await this.repos.evaluations.recentRisks(input.env.id, user.id, result.id, LOOK_BACK)).slice(1).find(measured);
    const before = previous?.risks ? riskLevels(previous.risks) : [];
    if (before.some((r) => r.name === "account_sharing" && RAISED.has(r.severity))) return;
    const deviceRow = identity.device?.row;
    const data = {
      account: user.external_id,
      user: toEventUser(user),
      ...(deviceRow ? { device: toWireDevice(deviceRow, user.external_id) } : {}),
    };
    await this.events.emit(input.env.id, "account_sharing.signal", data);

    const admin = input.env.settings.admin_email;
    if (!this.mailer || !admin) return;
    const job: AdminEmailJob = {
      environmentId: input.env.id,
      userId: user.id,
      to: admin,
      subject: `[${input.env.projectName}] Account ${user.external_id} looks shared`,
      text:
        `Tessera rated the account-sharing risk of account ${user.external_id} ${risk.severity} (score ${risk.score}) ` +
        `in evaluation ${result.id}.\nIndicators: ${risk.indicators.join(", ") || "none"}.\n`,
      event: { ...data, admin_email: admin },
    };
    await this.jobs.enqueue(ADMIN_EMAIL_JOB, { ...job });
  };

  /** The job: emails the admin (once a day per account at most), then records `account_sharing.admin_notified`. */
  readonly sendAdminEmail = async (payload: Record<string, unknown>): Promise<void> => {
    const job = payload as unknown as AdminEmailJob;
    if (!this.mailer) throw new Error("No mail transport (SMTP_URL) to email the admin with");
    const { allowed } = await this.limiter.hit(`admin-email:${job.environmentId}:${job.userId}`, 1, ADMIN_EMAIL_INTERVAL_MS);
    if (!allowed) return;
    await this.mailer.send({ to: job.to, subject: job.subject, text: job.text });
    await this.repos.transaction(() => this.events.emit(job.environmentId, "account_sharing.admin_notified", job.event));
  };
}
