// Retention of everything that grows with traffic (docs/storage.md#retention-and-erasure), one method per kind of
// record, each saying why it goes when it goes. Deletes run in bounded steps (a batch of rows, or a range of ids read in
// key order), with a turn of the event loop between two (nextTurn), so that on the embedded store, whose queries run on
// the event loop, no step holds requests up for long, and no index is added to the hot path only for the sweep. Evaluations, access records, webhook deliveries, login
// attempts and provisional users have their own prunes (user-data.ts, webhooks.ts, users.ts).
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";
import { nextTurn, Repository } from "./transactions.js";

/** Rows deleted per statement. */
const BATCH = 1000;
/** Ids read per step of a sweep over a whole table (devices, fingerprints, users). */
const CHUNK = 5000;

const deleted = (r: { numDeletedRows?: bigint }) => Number(r.numDeletedRows ?? 0n);

type Swept = "devices" | "fingerprints" | "users";

export class RetentionRepo extends Repository {
  /** Every environment's id: time-ordered indexes lead with it, so deletes by age go environment by environment. */
  private async environments(): Promise<string[]> {
    return (await this.db.selectFrom("environments").select("id").execute()).map((r) => r.id);
  }

  /**
   * The ids of `table` in key order, CHUNK at a time, as ranges (after, last]: each step of a sweep reads one range,
   * whatever share of it matches.
   */
  private async *ranges(table: Swept): AsyncGenerator<{ after: string | null; last: string }> {
    // One table's ids at a time; the cast only lets the three tables share this loop.
    const db = this.db as unknown as Kysely<Pick<Database, "devices">>;
    let after: string | null = null;
    for (;;) {
      let q = db
        .selectFrom(table as "devices")
        .select("id")
        .orderBy("id")
        .limit(CHUNK);
      if (after !== null) q = q.where("id", ">", after);
      const rows = await q.execute();
      const last = rows[rows.length - 1]?.id;
      if (last === undefined) return;
      yield { after, last };
      if (rows.length < CHUNK) return;
      after = last;
      await nextTurn();
    }
  }

  /**
   * Challenges that expired before `before`, with their development outbox rows. A challenge lives at most its link's
   * lifetime (CHALLENGE_TOKEN_TTL, a week at most): past RETENTION_DAYS after its end nobody can act on it, and its
   * evaluation is gone too.
   */
  async pruneChallenges(before: number): Promise<number> {
    let n = 0;
    for (const env of await this.environments()) {
      for (;;) {
        const ids = (
          await this.db
            .selectFrom("challenges")
            .select("id")
            .where("environment_id", "=", env)
            .where("created_at", "<", before)
            .where("expires_at", "<", before)
            .limit(BATCH)
            .execute()
        ).map((r) => r.id);
        if (ids.length === 0) break;
        await this.transactions.run(async () => {
          await this.db.deleteFrom("dev_outbox").where("environment_id", "=", env).where("challenge_id", "in", ids).execute();
          n += deleted(await this.db.deleteFrom("challenges").where("environment_id", "=", env).where("id", "in", ids).executeTakeFirst());
        });
        if (ids.length < BATCH) break;
        await nextTurn();
      }
    }
    return n;
  }

  /**
   * The development outbox: the codes a development server "sent", in clear (that is what it is for). A code is valid
   * 10 minutes; a day later its row is only a copy of a code lying around.
   */
  async pruneDevOutbox(before: number): Promise<number> {
    let n = 0;
    for (const env of await this.environments()) {
      n += deleted(
        await this.db.deleteFrom("dev_outbox").where("environment_id", "=", env).where("created_at", "<", before).executeTakeFirst(),
      );
    }
    return n;
  }

  /** Content hashes are read over a day (checks/history.ts, WINDOWS.content): older ones are never read again. */
  async pruneContentHashes(before: number): Promise<number> {
    let n = 0;
    for (;;) {
      const ids = (await this.db.selectFrom("content_hashes").select("id").where("created_at", "<", before).limit(BATCH).execute()).map(
        (r) => r.id,
      );
      if (ids.length === 0) return n;
      n += deleted(await this.db.deleteFrom("content_hashes").where("id", "in", ids).executeTakeFirst());
      if (ids.length < BATCH) return n;
      await nextTurn();
    }
  }

  /**
   * Legacy identifications and conversion markers (the /v2/proj flow): like the evaluations and access records they
   * stand beside, kept RETENTION_DAYS.
   */
  async pruneIdentifications(before: number): Promise<number> {
    let n = 0;
    for (const table of ["identifications", "conversion_markers"] as const) {
      for (;;) {
        const ids = (await this.db.selectFrom(table).select("id").where("created_at", "<", before).limit(BATCH).execute()).map((r) => r.id);
        if (ids.length === 0) break;
        n += deleted(await this.db.deleteFrom(table).where("id", "in", ids).executeTakeFirst());
        if (ids.length < BATCH) break;
        await nextTurn();
      }
    }
    return n;
  }

  /**
   * Devices not seen since `before` (never seen: since they were made), attached or not, with what hangs on them: the
   * sign-ins confirmed on them, their identifications and conversion markers. A browser unseen for RETENTION_DAYS has
   * no evaluation left either; if it comes back it is a new device, as after an erasure.
   */
  async pruneDevices(before: number): Promise<number> {
    let n = 0;
    for await (const { after, last } of this.ranges("devices")) {
      await this.transactions.run(async () => {
        let q = this.db
          .deleteFrom("devices")
          .where("id", "<=", last)
          .where((eb) => eb(eb.fn.coalesce("last_seen_at", "created_at"), "<", before));
        if (after !== null) q = q.where("id", ">", after);
        const gone = (await q.returning("id").execute()).map((r) => r.id);
        if (gone.length === 0) return;
        n += gone.length;
        await this.db.deleteFrom("device_confirmations").where("device_id", "in", gone).execute();
        await this.db.deleteFrom("identifications").where("device_id", "in", gone).execute();
        await this.db.deleteFrom("conversion_markers").where("device_id", "in", gone).execute();
      });
    }
    return n;
  }

  /**
   * Fingerprints not seen since `before` that no device holds any more (their evaluations are older than that, and
   * gone). A fingerprint is a browser's components: kept while a device or the retention window needs it.
   */
  async pruneFingerprints(before: number): Promise<number> {
    let n = 0;
    for await (const { after, last } of this.ranges("fingerprints")) {
      let q = this.db
        .deleteFrom("fingerprints")
        .where("id", "<=", last)
        .where("last_seen_at", "<", before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("devices as d")
                .select("d.id")
                .whereRef("d.environment_id", "=", "fingerprints.environment_id")
                .whereRef("d.fingerprint_id", "=", "fingerprints.id"),
            ),
          ),
        );
      if (after !== null) q = q.where("id", ">", after);
      n += deleted(await q.executeTakeFirst());
    }
    return n;
  }

  /**
   * Confirmed users with nothing left and nothing new: no evaluation (every one older than `before` is gone), no
   * device, and no change by the customer's backend since `before`. A user with recent activity, or one the backend
   * updated (contacts, metadata) within the window, is kept; a forgotten one comes back as new at its next login, as
   * after an erasure. Provisional users have their own, shorter rule (users.ts).
   */
  async pruneStaleUsers(before: number): Promise<number> {
    let n = 0;
    for await (const { after, last } of this.ranges("users")) {
      await this.transactions.run(async () => {
        let q = this.db
          .deleteFrom("users")
          .where("id", "<=", last)
          .where("provisional", "=", 0)
          .where("updated_at", "<", before)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom("evaluations as e")
                  .select("e.id")
                  .whereRef("e.environment_id", "=", "users.environment_id")
                  .whereRef("e.user_id", "=", "users.id"),
              ),
            ),
          )
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom("devices as d")
                  .select("d.id")
                  .whereRef("d.environment_id", "=", "users.environment_id")
                  .whereRef("d.user_id", "=", "users.id"),
              ),
            ),
          );
        if (after !== null) q = q.where("id", ">", after);
        const gone = (await q.returning("id").execute()).map((r) => r.id);
        if (gone.length === 0) return;
        n += gone.length;
        await this.db.deleteFrom("device_confirmations").where("user_id", "in", gone).execute();
        await this.db.deleteFrom("login_attempts").where("user_id", "in", gone).execute();
      });
    }
    return n;
  }

  /**
   * List entries that expired before `before`: lookups ignore them from their expiry on (lists.ts), and nothing shows
   * them; the customer's unexpired entries are configuration and stay.
   */
  async pruneExpiredListEntries(before: number): Promise<number> {
    return deleted(await this.db.deleteFrom("list_entries").where("expires_at", "<", before).executeTakeFirst());
  }

  /**
   * The audit log: who changed what in the console and the API. It is kept longer than traffic (`before` is the
   * caller's: a year at least), since it answers for changes long after them; it grows with operators' changes, not
   * with traffic.
   */
  async pruneAuditLog(before: number): Promise<number> {
    let n = 0;
    const projects = (await this.db.selectFrom("projects").select("id").execute()).map((r) => r.id);
    for (const project of [...projects, null]) {
      for (;;) {
        const ids = (
          await this.db
            .selectFrom("audit_log")
            .select("id")
            .where("project_id", project === null ? "is" : "=", project)
            .where("created_at", "<", before)
            .limit(BATCH)
            .execute()
        ).map((r) => r.id);
        if (ids.length === 0) break;
        n += deleted(await this.db.deleteFrom("audit_log").where("id", "in", ids).executeTakeFirst());
        if (ids.length < BATCH) break;
        await nextTurn();
      }
    }
    return n;
  }
}
