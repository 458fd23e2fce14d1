// Repository of end users, keyed by (environment, the customer's user id); their service_id is our own id.
import type { Kysely, Selectable } from "kysely";
import { newId } from "../ids.js";
import { now } from "../time.js";
import { prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { UsersTable } from "./tables/core.js";

export type UserRow = Selectable<UsersTable>;

const byExternal = prepared((db, p: { env: string; external: string }) =>
  db.selectFrom("users").selectAll().where("environment_id", "=", p.env).where("external_id", "=", p.external),
);
const USER_COLUMNS = [
  "id",
  "environment_id",
  "external_id",
  "email",
  "phone",
  "email_verified",
  "phone_verified",
  "metadata",
  "groups",
  "skip_challenge_count",
  "converted_at",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof UserRow>;
const insertIfAbsent = prepared((db, p: UserRow) =>
  db
    .insertInto("users")
    .values(Object.fromEntries(USER_COLUMNS.map((c) => [c, p[c]])) as UserRow)
    .onConflict((oc) => oc.columns(["environment_id", "external_id"]).doNothing()),
);

export class UsersRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async findByExternal(environmentId: string, externalId: string): Promise<UserRow | undefined> {
    return byExternal.first(this.db, { env: environmentId, external: externalId });
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /**
   * Finds or creates the user; sent email/phone/metadata replace the stored ones. Answers the row and whether it was
   * created. Concurrent first sightings of one user resolve to one row (unique (environment, external id)).
   */
  async upsert(
    environmentId: string,
    externalId: string,
    fields: { email?: string; phone?: string; metadata?: Record<string, unknown> },
    db: Kysely<Database> = this.db,
    /** The row as the caller already read it (the evaluation's identity step), to spare a second read. */
    known?: UserRow,
  ): Promise<{ user: UserRow; created: boolean }> {
    const existing = known ?? (await byExternal.first(db, { env: environmentId, external: externalId }));
    const t = now();
    if (existing) {
      const patch: Partial<UserRow> = {};
      if (fields.email !== undefined && fields.email !== existing.email) Object.assign(patch, { email: fields.email, email_verified: 0 });
      if (fields.phone !== undefined && fields.phone !== existing.phone) Object.assign(patch, { phone: fields.phone, phone_verified: 0 });
      if (fields.metadata !== undefined) {
        // Most logins send the same metadata again: no write (and no dirty page) for an unchanged value.
        const metadata = JSON.stringify(fields.metadata);
        if (metadata !== existing.metadata) patch.metadata = metadata;
      }
      if (Object.keys(patch).length === 0) return { user: existing, created: false };
      patch.updated_at = t;
      await db.updateTable("users").set(patch).where("id", "=", existing.id).execute();
      return { user: { ...existing, ...patch }, created: false };
    }
    const row: UserRow = {
      id: newId("usr"),
      environment_id: environmentId,
      external_id: externalId,
      email: fields.email ?? null,
      phone: fields.phone ?? null,
      email_verified: 0,
      phone_verified: 0,
      metadata: JSON.stringify(fields.metadata ?? {}),
      groups: "[]",
      skip_challenge_count: 0,
      converted_at: null,
      created_at: t,
      updated_at: t,
    };
    const res = await insertIfAbsent.execute(db, row);
    if (Number(res.numAffectedRows ?? 0n) === 0) {
      // Another request created it first.
      const other = await byExternal.first(db, { env: environmentId, external: externalId });
      if (!other) throw new Error(`User ${externalId} neither inserted nor found`);
      return { user: other, created: false };
    }
    return { user: row, created: true };
  }
}
