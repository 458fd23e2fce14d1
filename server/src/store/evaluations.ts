// Repository of evaluations: insert, read, atomic consume (the wire object is wire/evaluations.ts's).
import type { Selectable } from "kysely";
import { now } from "../time.js";
import { FamiliarSightings } from "./familiarity.js";
import { ADMITTED, trust } from "./history.js";
import { prepared, queueInsert } from "./prepared.js";
import type { EvaluationsTable } from "./tables/core.js";
import { Repository } from "./transactions.js";

export type EvaluationRow = Selectable<EvaluationsTable>;
const byId = prepared((db, p: { env: string; id: string }) =>
  db.selectFrom("evaluations").selectAll().where("id", "=", p.id).where("environment_id", "=", p.env),
);
// Consuming an evaluation that let the user in confirms it (migration 23): the backend has checked the password. One
// whose challenge the user passed was confirmed by the verify; a consumed denial or unanswered challenge stays as it is.
const consumeIfNot = prepared((db, p: { env: string; id: string; at: number }) =>
  db
    .updateTable("evaluations")
    .set((eb) => ({
      consumed: 1,
      consumed_at: p.at,
      updated_at: p.at,
      confirmed: eb.case().when("verdict", "in", ADMITTED).then(1).else(eb.ref("confirmed")).end(),
    }))
    .where("id", "=", p.id)
    .where("environment_id", "=", p.env)
    .where("consumed", "=", 0)
    .returningAll(),
);
const confirmById = prepared((db, p: { env: string; id: string; at: number }) =>
  db
    .updateTable("evaluations")
    .set({ confirmed: 1, updated_at: p.at })
    .where("id", "=", p.id)
    .where("environment_id", "=", p.env)
    .returning(["environment_id", "device_id", "user_id", "familiar", "created_at", "pending_token"]),
);
const attachUnowned = prepared((db, p: { env: string; device: string; user: string; at: number }) =>
  db
    .updateTable("devices")
    .set({ user_id: p.user, status: "attached", attached_at: p.at, detached_at: null, updated_at: p.at })
    .where("environment_id", "=", p.env)
    .where("id", "=", p.device)
    .where("user_id", "is", null),
);
const challengeOf = prepared((db, p: { id: string; challenge: string; redirect: string | null; at: number }) =>
  db.updateTable("evaluations").set({ challenge_id: p.challenge, redirect: p.redirect, updated_at: p.at }).where("id", "=", p.id),
);

const recentRisksOf = prepared((db, p: { env: string; user: string; id: string; limit: number }) =>
  db
    .selectFrom("evaluations")
    .select(["risks", "checks"])
    .where("environment_id", "=", p.env)
    .where("user_id", "=", p.user)
    .where("id", "!=", p.id)
    .orderBy("created_at", "desc")
    .limit(p.limit),
);

export type ConsumeResult = { ok: true; row: EvaluationRow } | { ok: false; reason: "not_found" | "already_consumed" };

export class EvaluationsRepo extends Repository {
  /** The familiar values this process wrote lately, by user: what a repeat page view need not write again. */
  readonly #sightings = new FamiliarSightings();

  async insert(row: EvaluationRow): Promise<void> {
    await queueInsert(this.db, "evaluations", row);
  }

  /**
   * The evaluation, confirmed as it was written (a backend's, a signed user id, or on a device the user signed in on:
   * `deviceSignedIn`), is the user's own: its device and its familiar values are theirs, and a device recognised by
   * its fingerprint takes the request's token (store/history.ts, trust). `repeatView`: a page view of a known session,
   * whose values are not written again while this process wrote the same ones for the user lately.
   */
  async trustAtInsert(row: EvaluationRow, deviceSignedIn: boolean, repeatView = false): Promise<void> {
    // A page view of a known session (pipeline/page-view.ts) with the values the ledger got from this user lately:
    // nothing to add but a later `last_seen` (store/familiarity.ts, FamiliarSightings).
    if (repeatView && deviceSignedIn && this.#sightings.fresh(row)) return;
    await trust(this.db, row, row.created_at, deviceSignedIn);
    this.transactions.afterCommit(() => this.#sightings.note(row));
  }

  async find(environmentId: string, id: string): Promise<EvaluationRow | undefined> {
    return byId.first(this.db, { env: environmentId, id });
  }

  /**
   * Marks the evaluation consumed if and only if it was not: a single conditional UPDATE, so of any number of
   * concurrent consumes, on one store or across instances sharing PostgreSQL, exactly one matches the row.
   */
  async consume(environmentId: string, id: string): Promise<ConsumeResult> {
    const t = now();
    const row = await consumeIfNot.first(this.db, { env: environmentId, id, at: t });
    if (row) {
      if (Number(row.confirmed) === 1) {
        await trust(this.db, row, t);
        // A page or custom action the backend consumed while it let the user in: it vouched for the session, so a
        // device nobody owns joins the account (the request itself never puts a device on an account's list).
        if (row.device_id && row.user_id)
          await attachUnowned.execute(this.db, { env: environmentId, device: row.device_id, user: row.user_id, at: t });
      }
      return { ok: true, row };
    }
    const exists = await this.find(environmentId, id);
    return { ok: false, reason: exists ? "already_consumed" : "not_found" };
  }

  /**
   * Confirms the evaluation, the device it came from and its familiar values as the user's own (migration 23, store/history.ts
   * trust): its challenge was passed.
   */
  async confirm(environmentId: string, id: string, at = now()): Promise<void> {
    const row = await confirmById.first(this.db, { env: environmentId, id, at });
    if (row) await trust(this.db, { ...row, created_at: Number(row.created_at) }, at);
  }

  /**
   * The risks and checks of the user's latest evaluations other than `evaluationId`, newest first (at most `limit`).
   * Prepared: the account-sharing step reads it on every evaluation of an account whose risk is raised.
   */
  async recentRisks(
    environmentId: string,
    userId: string,
    evaluationId: string,
    limit: number,
  ): Promise<Array<{ risks: string | null; checks: string | null }>> {
    return recentRisksOf.rows(this.db, { env: environmentId, user: userId, id: evaluationId, limit });
  }

  async setChallenge(id: string, challengeId: string, redirect: string | null): Promise<void> {
    await challengeOf.execute(this.db, { id, challenge: challengeId, redirect, at: now() });
  }
}
