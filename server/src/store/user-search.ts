// User search for the console and scripts (GET /v3/users?query=; docs/console.md): a user id, service id, email or phone
// exactly (indexed), then users whose id or email starts with the query.
import { sql } from "kysely";
import { Repository } from "./transactions.js";
import type { UserRow } from "./users.js";

const likePrefix = (q: string) => `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class UserSearchRepo extends Repository {
  async search(environmentId: string, query: string | undefined, limit: number): Promise<UserRow[]> {
    const base = () => this.db.selectFrom("users").selectAll().where("environment_id", "=", environmentId);
    const q = query?.trim();
    if (!q) return base().orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
    const exact = await base()
      .where((eb) => eb.or([eb("external_id", "=", q), eb("id", "=", q), eb("email", "in", [q, q.toLowerCase()]), eb("phone", "=", q)]))
      .limit(limit)
      .execute();
    if (exact.length >= limit) return exact;
    const seen = new Set(exact.map((u) => u.id));
    const prefix = likePrefix(q);
    const more = await base()
      .where((eb) =>
        eb.or([
          sql<boolean>`${sql.ref("external_id")} like ${prefix} escape '\\'`,
          sql<boolean>`${sql.ref("email")} like ${likePrefix(q.toLowerCase())} escape '\\'`,
        ]),
      )
      .orderBy("external_id")
      .limit(limit + exact.length)
      .execute();
    return [...exact, ...more.filter((u) => !seen.has(u.id))].slice(0, limit);
  }
}
