// Repository of end users, keyed by (environment, the customer's user id); their service_id is our own id.
import type { Kysely, Selectable } from "kysely";
import { newId } from "../ids.js";
import { now } from "../time.js";
import { insertRow, prepared, updateRow } from "./prepared.js";
import type { Database } from "./schema.js";
import type { UsersTable } from "./tables/core.js";

export type UserRow = Selectable<UsersTable>;

const byExternal = prepared((db, p: { env: string; external: string }) =>
  db.selectFrom("users").selectAll().where("environment_id", "=", p.env).where("external_id", "=", p.external),
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
      await updateRow(db, "users", existing.id, patch);
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
    if (!(await insertRow(db, "users", row, ["environment_id", "external_id"]))) {
      // Another request created it first.
      const other = await byExternal.first(db, { env: environmentId, external: externalId });
      if (!other) throw new Error(`User ${externalId} neither inserted nor found`);
      return { user: other, created: false };
    }
    return { user: row, created: true };
  }
}
