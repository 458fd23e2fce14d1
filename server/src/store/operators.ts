// Repository of console operators (docs/console.md): accounts, their roles per project, one-time sign-in links and
// sessions. Link tokens and session tokens are stored as sha256 hashes, passwords as scrypt hashes (console/passwords).
import type { Selectable } from "kysely";
import { newId } from "../ids.js";
import { now } from "../time.js";
import type { OperatorsTable } from "./tables/console.js";
import { Repository } from "./transactions.js";

export type OperatorRow = Selectable<OperatorsTable>;

export class OperatorsRepo extends Repository {
  async count(): Promise<number> {
    const r = await this.db
      .selectFrom("operators")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async findByEmail(email: string): Promise<OperatorRow | undefined> {
    return this.db.selectFrom("operators").selectAll().where("email", "=", email.trim().toLowerCase()).executeTakeFirst();
  }

  async findById(id: string): Promise<OperatorRow | undefined> {
    return this.db.selectFrom("operators").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async findByLink(hash: string, at: number): Promise<OperatorRow | undefined> {
    return this.db.selectFrom("operators").selectAll().where("link_hash", "=", hash).where("link_expires_at", ">", at).executeTakeFirst();
  }

  /** The operator with this email, created if new; answers whether it was created. */
  async ensure(email: string): Promise<{ operator: OperatorRow; created: boolean }> {
    const existing = await this.findByEmail(email);
    if (existing) return { operator: existing, created: false };
    const t = now();
    const row: OperatorRow = {
      id: newId("op"),
      email: email.trim().toLowerCase(),
      password_hash: null,
      all_projects_role: null,
      link_hash: null,
      link_expires_at: null,
      created_at: t,
      updated_at: t,
    };
    await this.db
      .insertInto("operators")
      .values(row)
      .onConflict((oc) => oc.column("email").doNothing())
      .execute();
    const stored = await this.findByEmail(email);
    if (!stored) throw new Error(`Operator ${email} neither inserted nor found`);
    return { operator: stored, created: stored.id === row.id };
  }

  async grant(operatorId: string, projectId: string, role: string): Promise<void> {
    await this.db
      .insertInto("operator_projects")
      .values({ operator_id: operatorId, project_id: projectId, role })
      .onConflict((oc) => oc.columns(["operator_id", "project_id"]).doUpdateSet({ role }))
      .execute();
  }

  async setAllProjectsRole(operatorId: string, role: string | null): Promise<void> {
    await this.db.updateTable("operators").set({ all_projects_role: role, updated_at: now() }).where("id", "=", operatorId).execute();
  }

  /** Takes the operator off these projects (its grants there; an all-projects role is not a grant). */
  async revoke(operatorId: string, projectIds: string[]): Promise<void> {
    if (projectIds.length === 0) return;
    await this.db.deleteFrom("operator_projects").where("operator_id", "=", operatorId).where("project_id", "in", projectIds).execute();
  }

  /** Deletes the operator with its grants and sessions (explicitly: SQLite enforces no foreign keys here). */
  async remove(operatorId: string): Promise<void> {
    await this.db.deleteFrom("operator_sessions").where("operator_id", "=", operatorId).execute();
    await this.db.deleteFrom("operator_projects").where("operator_id", "=", operatorId).execute();
    await this.db.deleteFrom("operators").where("id", "=", operatorId).execute();
  }

  /** How many operators hold this role on every project (the installation's administrators, for owner). */
  async countAllProjects(role: string): Promise<number> {
    const r = await this.db
      .selectFrom("operators")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("all_projects_role", "=", role)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async grants(operatorId: string): Promise<{ project_id: string; role: string }[]> {
    return this.db.selectFrom("operator_projects").select(["project_id", "role"]).where("operator_id", "=", operatorId).execute();
  }

  async setLink(operatorId: string, hash: string, expiresAt: number): Promise<void> {
    await this.db
      .updateTable("operators")
      .set({ link_hash: hash, link_expires_at: expiresAt, updated_at: now() })
      .where("id", "=", operatorId)
      .execute();
  }

  /**
   * Sets the password and spends the link in one conditional write: of two uses of one link, one wins.
   * Answers whether this call was the one.
   */
  async usePasswordLink(operatorId: string, linkHash: string, passwordHash: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable("operators")
      .set({ password_hash: passwordHash, link_hash: null, link_expires_at: null, updated_at: at })
      .where("id", "=", operatorId)
      .where("link_hash", "=", linkHash)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async createSession(hash: string, operatorId: string, expiresAt: number): Promise<void> {
    await this.db
      .insertInto("operator_sessions")
      .values({ id: hash, operator_id: operatorId, created_at: now(), expires_at: expiresAt })
      .execute();
  }

  /** The live session with this token hash and its operator. */
  async session(hash: string, at: number): Promise<OperatorRow | undefined> {
    return this.db
      .selectFrom("operator_sessions")
      .innerJoin("operators", "operators.id", "operator_sessions.operator_id")
      .selectAll("operators")
      .where("operator_sessions.id", "=", hash)
      .where("operator_sessions.expires_at", ">", at)
      .executeTakeFirst();
  }

  async deleteSession(hash: string): Promise<void> {
    await this.db.deleteFrom("operator_sessions").where("id", "=", hash).execute();
  }

  /** Every session of the operator (a new password signs the others out). */
  async deleteSessionsOf(operatorId: string): Promise<void> {
    await this.db.deleteFrom("operator_sessions").where("operator_id", "=", operatorId).execute();
  }

  /** Projects with their environments, for an operator's session (all projects, or those listed). */
  async projects(
    projectIds: string[] | "all",
  ): Promise<{ id: string; name: string; environments: { id: string; name: "development" | "production" }[] }[]> {
    if (projectIds !== "all" && projectIds.length === 0) return [];
    let q = this.db
      .selectFrom("projects")
      .innerJoin("environments", "environments.project_id", "projects.id")
      .select(["projects.id as project_id", "projects.name as project_name", "environments.id as env_id", "environments.name as env_name"])
      .orderBy("projects.created_at")
      .orderBy("environments.name");
    if (projectIds !== "all") q = q.where("projects.id", "in", projectIds);
    const out = new Map<string, { id: string; name: string; environments: { id: string; name: "development" | "production" }[] }>();
    for (const r of await q.execute()) {
      let p = out.get(r.project_id);
      if (!p) {
        p = { id: r.project_id, name: r.project_name, environments: [] };
        out.set(r.project_id, p);
      }
      p.environments.push({ id: r.env_id, name: r.env_name });
    }
    return [...out.values()];
  }

  async projectExists(id: string): Promise<boolean> {
    return (await this.db.selectFrom("projects").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
  }

  async pruneSessions(at: number): Promise<number> {
    const r = await this.db.deleteFrom("operator_sessions").where("expires_at", "<=", at).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
