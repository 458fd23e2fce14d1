// Repository of challenges and the development outbox. Status changes are conditional updates (`from` statuses in
// the WHERE clause), so concurrent operations on one challenge cannot both move it.
import type { ChallengeStatus } from "@tessera/sdk/contract";
import { type Kysely, PostgresAdapter, type Selectable } from "kysely";
import { insertRow, prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { ChallengesTable, DevOutboxTable } from "./tables/challenges.js";
import { Repository } from "./transactions.js";

export type ChallengeRow = Selectable<ChallengesTable>;
export type DevOutboxRow = Selectable<DevOutboxTable>;

const PENDING: ChallengeStatus[] = ["created", "presented", "code_sent", "verified"];
const pending = (db: Kysely<Database>, p: { env: string; user: string }) =>
  db.selectFrom("challenges").selectAll().where("environment_id", "=", p.env).where("user_id", "=", p.user).where("status", "in", PENDING);
const pendingOnDevice = prepared((db, p: { env: string; user: string; device: string }) =>
  pending(db, p).where("device_id", "=", p.device),
);
const pendingOffDevice = prepared((db, p: { env: string; user: string }) => pending(db, p).where("device_id", "is", null));

const statusIf = prepared((db, p: { id: string; from: string; to: string; at: number }) =>
  db.updateTable("challenges").set({ status: p.to, updated_at: p.at }).where("id", "=", p.id).where("status", "=", p.from),
);

export class ChallengesRepo extends Repository {
  async insert(row: ChallengeRow): Promise<void> {
    await insertRow(this.db, "challenges", row);
  }

  async find(environmentId: string, id: string): Promise<ChallengeRow | undefined> {
    return this.db.selectFrom("challenges").selectAll().where("environment_id", "=", environmentId).where("id", "=", id).executeTakeFirst();
  }

  async findById(id: string): Promise<ChallengeRow | undefined> {
    return this.db.selectFrom("challenges").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** Applies `patch` only while the challenge is in one of `from`; answers the updated row, or undefined if it moved. */
  async updateIf(id: string, from: readonly ChallengeStatus[], patch: Partial<ChallengeRow>): Promise<ChallengeRow | undefined> {
    return this.db
      .updateTable("challenges")
      .set(patch)
      .where("id", "=", id)
      .where("status", "in", [...from])
      .returningAll()
      .executeTakeFirst();
  }

  /** Moves the challenge from one status to another, unless it moved meanwhile; answers whether it did. */
  async moveIf(id: string, from: ChallengeStatus, to: ChallengeStatus, at: number): Promise<boolean> {
    const res = await statusIf.execute(this.db, { id, from, to, at });
    return Number(res.numAffectedRows ?? 0n) > 0;
  }

  /**
   * Code sends still "pending" that began before `before` (challenges/recovery.ts), oldest first: the process that
   * sent them stopped between recording the code and recording the outcome.
   */
  async interruptedSends(before: number, limit: number): Promise<ChallengeRow[]> {
    return this.db
      .selectFrom("challenges")
      .selectAll()
      .where("delivery_status", "=", "pending")
      .where("last_sent_at", "<", before)
      .orderBy("last_sent_at")
      .limit(limit)
      .execute();
  }

  /**
   * Records an interrupted send as failed, only if it is still that send (the same `last_sent_at`, still pending): a
   * newer send, or a slow one that finished meanwhile, is left alone. Answers the updated row. `resendFrom`: the send
   * counts as made then, so that the resend cooldown (counted from last_sent_at) is over.
   */
  async failInterruptedSend(id: string, sentAt: number, error: string, at: number, resendFrom?: number): Promise<ChallengeRow | undefined> {
    return this.db
      .updateTable("challenges")
      .set({
        delivery_status: "failed",
        delivery_error: error,
        updated_at: at,
        ...(resendFrom === undefined ? {} : { last_sent_at: Math.min(sentAt, resendFrom) }),
      })
      .where("id", "=", id)
      .where("delivery_status", "=", "pending")
      .where("last_sent_at", "=", sentAt)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Claims the next code send of a challenge, in one conditional update: only while it is in one of `from`, has sent
   * fewer than `maxSends` codes, and sent none since `at - cooldownMs`. Counts the send and stamps it `at`; answers the
   * row as claimed, or undefined if another send (or a move) came first: of concurrent resends exactly one is claimed.
   */
  async claimSend(
    id: string,
    from: readonly ChallengeStatus[],
    at: number,
    cooldownMs: number,
    maxSends: number,
  ): Promise<ChallengeRow | undefined> {
    return this.db
      .updateTable("challenges")
      .set((eb) => ({ send_count: eb("send_count", "+", 1), last_sent_at: at, updated_at: at }))
      .where("id", "=", id)
      .where("status", "in", [...from])
      .where("send_count", "<", maxSends)
      .where((eb) => eb.or([eb("last_sent_at", "is", null), eb("last_sent_at", "<=", at - cooldownMs)]))
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Gives back a send claimed at `at` that was not made (a budget refused it): the count and the time of the send
   * before, only while the claim is still the latest send.
   */
  async unclaimSend(id: string, claimed: { send_count: number; at: number }, previousSentAt: number | null): Promise<void> {
    await this.db
      .updateTable("challenges")
      .set({ send_count: claimed.send_count - 1, last_sent_at: previousSentAt })
      .where("id", "=", id)
      .where("send_count", "=", claimed.send_count)
      .where("last_sent_at", "=", claimed.at)
      .execute();
  }

  /** Counts one verify attempt atomically and answers the row as it is after counting (undefined if not code_sent). */
  async countAttempt(id: string, at: number): Promise<ChallengeRow | undefined> {
    return this.db
      .updateTable("challenges")
      .set((eb) => ({ verify_attempts: eb("verify_attempts", "+", 1), updated_at: at }))
      .where("id", "=", id)
      .where("status", "=", "code_sent")
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Pending challenges of a user, not yet past their expiry (expiry is applied lazily, so the time is checked here),
   * that count against one source's budget (challenges/budgets.ts): a vouched browser's own; else those of the same
   * unvouched browser, and those of its network not raised only by claimed contacts.
   */
  async countPendingFrom(
    environmentId: string,
    userId: string,
    source: { key: string; network: string | null; vouched: boolean },
    at: number,
  ): Promise<number> {
    const r = await pending(this.db, { env: environmentId, user: userId })
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("expires_at", ">", at)
      .where((eb) =>
        source.vouched
          ? eb.and([eb("source_vouched", "=", 1), eb("source_key", "=", source.key)])
          : eb.and([
              eb("source_vouched", "=", 0),
              eb.or([
                eb("source_key", "=", source.key),
                ...(source.network ? [eb.and([eb("source_network", "=", source.network), eb("contact_only", "=", 0)])] : []),
              ]),
            ]),
      )
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * Serialises the challenges issued for one user until `db` (a transaction) ends, so that concurrent evaluations
   * cannot both see room under the pending cap: a row lock on PostgreSQL; the embedded store runs one transaction at
   * a time already.
   */
  async lockUser(userId: string): Promise<void> {
    if (!(this.db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await this.db.selectFrom("users").select("id").where("id", "=", userId).forUpdate().execute();
  }

  /** Pending challenges of this user on this device, to be overridden by a newer one. */
  async pendingFor(environmentId: string, userId: string, deviceId: string | null): Promise<ChallengeRow[]> {
    return deviceId
      ? pendingOnDevice.rows(this.db, { env: environmentId, user: userId, device: deviceId })
      : pendingOffDevice.rows(this.db, { env: environmentId, user: userId });
  }

  async list(
    environmentId: string,
    q: { page: number; limit: number; status?: string; userId?: string },
  ): Promise<{ rows: ChallengeRow[]; total: number }> {
    let base = this.db.selectFrom("challenges").where("environment_id", "=", environmentId);
    if (q.status) base = base.where("status", "=", q.status);
    if (q.userId) base = base.where("user_id", "=", q.userId);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(q.limit)
        .offset((q.page - 1) * q.limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** Erases a user's challenges and their dev-outbox messages (privacy erasure); answers how many challenges went. */
  async eraseForUser(environmentId: string, userId: string): Promise<number> {
    const ids = this.db.selectFrom("challenges").select("id").where("environment_id", "=", environmentId).where("user_id", "=", userId);
    await this.db.deleteFrom("dev_outbox").where("environment_id", "=", environmentId).where("challenge_id", "in", ids).execute();
    const res = await this.db
      .deleteFrom("challenges")
      .where("environment_id", "=", environmentId)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** The delivery state of one send (`send_count` when it was made); a later send's state is left alone. */
  async setDeliveryStatus(id: string, sendCount: number, status: string, error: string | null): Promise<void> {
    await this.db
      .updateTable("challenges")
      .set({ delivery_status: status, delivery_error: error, updated_at: Date.now() })
      .where("id", "=", id)
      .where("send_count", "=", sendCount)
      .execute();
  }

  async addToOutbox(row: DevOutboxRow): Promise<void> {
    await this.db.insertInto("dev_outbox").values(row).execute();
  }

  /** The newest dev-outbox messages of every development environment, with their project's name (the demo's page). */
  async developmentOutbox(limit = 50): Promise<Array<DevOutboxRow & { project: string }>> {
    return this.db
      .selectFrom("dev_outbox")
      .innerJoin("environments", "environments.id", "dev_outbox.environment_id")
      .innerJoin("projects", "projects.id", "environments.project_id")
      .selectAll("dev_outbox")
      .select("projects.name as project")
      .where("environments.name", "=", "development")
      .orderBy("dev_outbox.created_at", "desc")
      .limit(limit)
      .execute();
  }

  async outbox(environmentId: string, limit = 50): Promise<DevOutboxRow[]> {
    return this.db
      .selectFrom("dev_outbox")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .orderBy("created_at", "desc")
      .limit(limit)
      .execute();
  }
}
