// Repository of end users, keyed by (environment, the customer's user id); their service_id is our own id.
// An account known by its email only (an email-only sign-up; docs/identity.md) has no customer id yet: its external_id is
// its own service id until the backend names it (claim), and its email_key is what finds it. A user first seen on a
// login is provisional until the customer's backend confirms it, and pruned a day later if it never does.
import { type Selectable, sql } from "kysely";
import { newId } from "../ids.js";
import { now } from "../time.js";
import type { Dialect } from "./db.js";
import { forgetFamiliarity } from "./familiarity.js";
import { joinable, joinRead } from "./joined-reads.js";
import { insertRow, prepared, queueInsert, queueUpdate, updateRow } from "./prepared.js";
import type { UsersTable } from "./tables/core.js";
import { nextTurn, Repository, type Transactions } from "./transactions.js";

export type UserRow = Selectable<UsersTable>;

// The identity step's reads: on PostgreSQL in one statement with the token's devices (store/joined-reads.ts).
const byEmailKey = joinable(0, (db, p: { env: string; key: string }) =>
  db.selectFrom("users").selectAll().where("environment_id", "=", p.env).where("email_key", "=", p.key).orderBy("created_at").limit(1),
);
const confirmNow = prepared((db, p: { id: string; at: number }) =>
  db.updateTable("users").set({ provisional: 0, updated_at: p.at }).where("id", "=", p.id).where("provisional", "=", 1),
);
const byExternal = joinable(0, (db, p: { env: string; external: string }) =>
  db.selectFrom("users").selectAll().where("environment_id", "=", p.env).where("external_id", "=", p.external),
);
/**
 * The user of this customer id, else the oldest account of this email key: one statement for the identity step. Two
 * lookups joined by `union all`, each on its own index: with `external_id = ? or email_key = ?` in one WHERE, SQLite
 * scanned every user of the environment (543 µs per evaluation with 5,000 users, and growing with them).
 */
const byExternalOrEmailKey = joinable(0, (db, p: { env: string; external: string; key: string }) =>
  db
    .selectFrom(
      db
        .selectFrom("users")
        .selectAll()
        .where("environment_id", "=", p.env)
        .where("external_id", "=", p.external)
        .unionAll(db.selectFrom("users").selectAll().where("environment_id", "=", p.env).where("email_key", "=", p.key))
        .as("u"),
    )
    .selectAll()
    .orderBy(sql`case when ${sql.ref("u.external_id")} = ${p.external} then 0 else 1 end`)
    .orderBy("u.created_at")
    .limit(1),
);

export class UsersRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
    /** The account key an email is indexed by (email_key): the domain's rule (pipeline/account-email.ts), not the store's. */
    private readonly accountEmailKey: (email: string) => string,
  ) {
    super(transactions);
  }

  /**
   * The user of this customer id and, when there is none, the account an email key names (findByEmailKey), read in
   * one statement: a new user's evaluation needs both.
   */
  async findByExternalOrEmailKey(
    environmentId: string,
    externalId: string,
    key: string,
  ): Promise<{ user?: UserRow; emailAccount?: UserRow }> {
    if (this.dialect === "sqlite") {
      // On the embedded store a statement is a call, not a round trip: two indexed reads, the second only for a new
      // user, cost less than the one that joins them.
      const user = await byExternal.alone.first(this.db, { env: environmentId, external: externalId });
      if (user) return { user };
      const emailAccount = await byEmailKey.alone.first(this.db, { env: environmentId, key });
      return emailAccount ? { emailAccount } : {};
    }
    const [row] = await joinRead(this.db, this.dialect, byExternalOrEmailKey, { env: environmentId, external: externalId, key });
    if (!row) return {};
    return row.external_id === externalId ? { user: row } : { emailAccount: row };
  }

  async findByExternal(environmentId: string, externalId: string): Promise<UserRow | undefined> {
    return (await joinRead(this.db, this.dialect, byExternal, { env: environmentId, external: externalId }))[0];
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** The account an email names (accountEmailKey): the oldest user with that key. */
  async findByEmailKey(environmentId: string, key: string): Promise<UserRow | undefined> {
    return (await joinRead(this.db, this.dialect, byEmailKey, { env: environmentId, key }))[0];
  }

  /** Creates the account of an email-only evaluation: no customer id yet (its own id stands in), found by its email. */
  async createEmailAccount(
    environmentId: string,
    fields: { email: string; emailKey: string; phone?: string; metadata?: Record<string, unknown>; provisional: boolean },
  ): Promise<UserRow> {
    const id = newId("usr");
    const row = this.newRow(environmentId, id, { ...fields, external: id });
    await queueInsert(this.db, "users", row);
    return row;
  }

  /** The customer names an email-only account (the browser of its sign-up logs in with the new user id). */
  async claim(id: string, externalId: string, at: number): Promise<boolean> {
    return updateRow(this.db, "users", id, { external_id: externalId, updated_at: at });
  }

  /** The customer's backend confirmed the user (consumed an evaluation, completed its challenge, updated it). */
  async confirm(id: string, at = now()): Promise<void> {
    await confirmNow.execute(this.db, { id, at });
  }

  /** A code sent to the user's email or phone was verified (a challenge): that contact is the user's. */
  async markVerified(id: string, channel: "email" | "text", at: number): Promise<void> {
    await this.db
      .updateTable("users")
      .set(channel === "email" ? { email_verified: 1, updated_at: at } : { phone_verified: 1, updated_at: at })
      .where("id", "=", id)
      .execute();
  }

  /** The user skipped a challenge (counted against the policy's skip_limit). */
  async countSkip(id: string, at: number): Promise<void> {
    await this.db
      .updateTable("users")
      .set((eb) => ({ skip_challenge_count: eb("skip_challenge_count", "+", 1), updated_at: at }))
      .where("id", "=", id)
      .execute();
  }

  /**
   * Of `ids`, those that are accounts (not provisional). The users are read by id alone and sorted here: with
   * `provisional = 0` in the statement PostgreSQL could read them through `users_provisional_created` instead of the
   * primary key, every confirmed user of the database per call, whenever its statistics held few confirmed users (an
   * install's first hours, or its ANALYZE made while they were provisional): 674 buffers per call in the bench, 3
   * through the primary key (docs/decisions/postgres-statement-costs.md).
   */
  async confirmedAmong(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom("users").select(["id", "provisional"]).where("id", "in", ids).execute();
    return rows.filter((r) => r.provisional === 0).map((r) => r.id);
  }

  /**
   * Retention of provisional users (docs/identity.md): those created before `before` and never confirmed are deleted, their
   * devices left unowned and their login attempts and familiarity ledger rows with them. Answers how many users went.
   */
  async pruneProvisional(before: number, batch = 500): Promise<number> {
    let removed = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom("users")
        .select(["id", "environment_id"])
        .where("provisional", "=", 1)
        .where("created_at", "<", before)
        .limit(batch)
        .execute();
      const ids = rows.map((r) => r.id);
      if (ids.length === 0) break;
      await this.transactions.run(async () => {
        // What a user never confirmed was let in with (a challenge passed) goes with it (store/familiarity.ts).
        for (const env of new Set(rows.map((r) => r.environment_id)))
          await forgetFamiliarity(
            this.db,
            env,
            rows.filter((r) => r.environment_id === env).map((r) => r.id),
          );
        await this.db
          .updateTable("devices")
          .set({ user_id: null, status: "attached", attached_at: null })
          .where("user_id", "in", ids)
          .execute();
        await this.db.deleteFrom("login_attempts").where("user_id", "in", ids).execute();
        await this.db.deleteFrom("users").where("id", "in", ids).where("provisional", "=", 1).execute();
      });
      removed += ids.length;
      if (ids.length < batch) break;
      await nextTurn();
    }
    await this.db.deleteFrom("login_attempts").where("created_at", "<", before).execute();
    return removed;
  }

  private newRow(
    environmentId: string,
    id: string,
    f: { external: string; email?: string; emailKey?: string; phone?: string; metadata?: Record<string, unknown>; provisional?: boolean },
  ): UserRow {
    const t = now();
    return {
      id,
      environment_id: environmentId,
      external_id: f.external,
      email: f.email ?? null,
      phone: f.phone ?? null,
      email_verified: 0,
      phone_verified: 0,
      metadata: JSON.stringify(f.metadata ?? {}),
      groups: "[]",
      skip_challenge_count: 0,
      converted_at: null,
      provisional: f.provisional ? 1 : 0,
      email_key: f.emailKey ?? (f.email ? this.accountEmailKey(f.email) : null),
      created_at: t,
      updated_at: t,
    };
  }

  /**
   * Finds or creates the user; sent metadata replaces the stored one. Contacts are the backend's (docs/security.md): sent
   * email/phone replace the stored ones when the backend sent them (`source: "server"`); a browser's (`"client"`)
   * are kept only on a user this call creates, never written over an existing user's. Answers the row and whether it
   * was created. Concurrent first sightings of one user resolve to one row (unique (environment, external id)).
   */
  async upsert(
    environmentId: string,
    externalId: string,
    fields: { source: "client" | "server"; email?: string; phone?: string; metadata?: Record<string, unknown>; provisional?: boolean },
    /**
     * The row as the caller already read it (the evaluation's identity step), to spare a second read; null: the caller
     * read it and found none, and retries its transaction if the insert fails because another request created the user
     * meanwhile (isUserTaken).
     */
    known?: UserRow | null,
  ): Promise<{ user: UserRow; created: boolean }> {
    const existing =
      known === null ? undefined : (known ?? (await byExternal.alone.first(this.db, { env: environmentId, external: externalId })));
    const t = now();
    if (existing) {
      const patch: Partial<UserRow> = {};
      // A claimed contact that differs is the check contact_mismatch, not a change (checks/index.ts).
      const fromBackend = fields.source === "server";
      if (fromBackend && fields.email !== undefined && fields.email !== existing.email)
        Object.assign(patch, { email: fields.email, email_verified: 0, email_key: this.accountEmailKey(fields.email) });
      if (fromBackend && fields.phone !== undefined && fields.phone !== existing.phone)
        Object.assign(patch, { phone: fields.phone, phone_verified: 0 });
      if (fields.metadata !== undefined) {
        // Most logins send the same metadata again: no write (and no dirty page) for an unchanged value.
        const metadata = JSON.stringify(fields.metadata);
        if (metadata !== existing.metadata) patch.metadata = metadata;
      }
      if (Object.keys(patch).length === 0) return { user: existing, created: false };
      patch.updated_at = t;
      await queueUpdate(this.db, "users", existing.id, patch);
      return { user: { ...existing, ...patch }, created: false };
    }
    const row = this.newRow(environmentId, newId("usr"), { ...fields, external: externalId });
    if (known === null) {
      // The caller read no user under this id and retries its transaction when another request created one meanwhile
      // (isUserTaken): a plain insert, which may join the transaction's write batch on PostgreSQL (store/write-batch.ts)
      // instead of a statement of its own whose answer is read. A concurrent creation then fails the transaction whole.
      await queueInsert(this.db, "users", row);
      return { user: row, created: true };
    }
    if (!(await insertRow(this.db, "users", row, ["environment_id", "external_id"]))) {
      // Another request created it first.
      const other = await byExternal.alone.first(this.db, { env: environmentId, external: externalId });
      if (!other) throw new Error(`User ${externalId} neither inserted nor found`);
      return { user: other, created: false };
    }
    return { user: row, created: true };
  }
}

/**
 * Whether `e` is the failure of a user's insert because another request created the same user first (the unique
 * constraint users_env_external of migration 001): on PostgreSQL at the statement that sent the insert, possibly the
 * transaction's write batch at its commit; on the embedded store at the insert.
 */
export function isUserTaken(e: unknown): boolean {
  const err = e as { code?: string; constraint?: string; message?: string } | undefined;
  if (err?.code === "23505") return err.constraint === "users_env_external";
  return err?.code === "SQLITE_CONSTRAINT_UNIQUE" && /users\.environment_id, users\.external_id/.test(err.message ?? "");
}
