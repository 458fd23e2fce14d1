// Repository of the audit log (docs/console.md): who changed what, when, with the object before and after. An entry is
// written when a change starts and given its outcome (the HTTP status) when it ends, so a change under way when the
// process died still shows, without an outcome. Read newest first with keyset pages over (created_at, id).
import type { Selectable } from "kysely";
import type { AuditLogTable } from "./tables/console.js";
import { Repository } from "./transactions.js";

export type AuditRow = Selectable<AuditLogTable>;

export interface AuditFilters {
  projectId: string;
  environmentId: string;
  actor?: string;
  action?: string;
  target?: string;
  from?: number;
  to?: number;
  /** Strictly older than this (created_at, id). */
  before?: { at: number; id: string };
  limit: number;
}

export class AuditLogRepo extends Repository {
  async insert(row: AuditRow): Promise<void> {
    await this.db.insertInto("audit_log").values(row).execute();
  }

  /** The outcome; `targetId` names what a creation created (known only from the answer). */
  async finish(id: string, status: number, after: string | null, targetId?: string): Promise<void> {
    await this.db
      .updateTable("audit_log")
      .set({ status, after, ...(targetId ? { target_id: targetId } : {}) })
      .where("id", "=", id)
      .execute();
  }

  /** The id of the key with this secret hash, revoked or not (the audit names the key, never the secret). */
  async keyIdByHash(hash: string): Promise<string | undefined> {
    return (await this.db.selectFrom("api_keys").select("id").where("hash", "=", hash).executeTakeFirst())?.id;
  }

  /** Where a key belongs (by id or by the hash of its secret), for an entry about the key itself. */
  async keyScope(
    id: string,
    hash: string,
  ): Promise<{ id: string; environment_id: string; project_id: string; prefix: string } | undefined> {
    return this.db
      .selectFrom("api_keys")
      .innerJoin("environments", "environments.id", "api_keys.environment_id")
      .select(["api_keys.id", "api_keys.environment_id", "environments.project_id", "api_keys.prefix"])
      .where((eb) => eb.or([eb("api_keys.id", "=", id), eb("api_keys.hash", "=", hash)]))
      .executeTakeFirst();
  }

  /** The environment's entries and its project's environment-less ones (settings of the project), newest first. */
  async list(f: AuditFilters): Promise<AuditRow[]> {
    let q = this.db
      .selectFrom("audit_log")
      .selectAll()
      .where("project_id", "=", f.projectId)
      .where((eb) => eb.or([eb("environment_id", "=", f.environmentId), eb("environment_id", "is", null)]));
    if (f.actor) q = q.where("actor_label", "=", f.actor.trim());
    if (f.action) q = q.where("action", "=", f.action);
    if (f.target) q = q.where("target_id", "=", f.target);
    if (f.from !== undefined) q = q.where("created_at", ">=", f.from);
    if (f.to !== undefined) q = q.where("created_at", "<", f.to);
    const b = f.before;
    if (b) q = q.where((eb) => eb.or([eb("created_at", "<", b.at), eb.and([eb("created_at", "=", b.at), eb("id", "<", b.id)])]));
    return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(f.limit).execute();
  }
}
