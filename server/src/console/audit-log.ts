// The audit log as GET /v3/audit-log reads it: the entries of the environment and its project, newest first, filtered,
// each as the API shows it (what console/audit.ts recorded).
import type { AuditFilters, AuditRow } from "../store/audit-log.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { iso } from "../time.js";

/** The entries of the environment and its project matching the filters, newest first (`limit` of them). */
export function auditEntries(
  services: { repos: Repos },
  env: EnvironmentRecord,
  filters: Omit<AuditFilters, "projectId" | "environmentId">,
): Promise<AuditRow[]> {
  return services.repos.auditLog.list({ projectId: env.projectId, environmentId: env.id, ...filters });
}

export function toWireAuditEntry(r: AuditRow) {
  return {
    id: r.id,
    actor: { type: r.actor_type as "operator" | "key" | "cli", ...(r.actor_id ? { id: r.actor_id } : {}), label: r.actor_label },
    action: r.action,
    ...(r.environment_id ? { environment: r.environment_id } : {}),
    ...(r.target_type ? { target: { type: r.target_type, ...(r.target_id ? { id: r.target_id } : {}) } } : {}),
    ...(r.before ? { before: JSON.parse(r.before) as unknown } : {}),
    ...(r.after ? { after: JSON.parse(r.after) as unknown } : {}),
    ...(r.status != null ? { status: Number(r.status) } : {}),
    ...(r.ip ? { ip: r.ip } : {}),
    createdAt: iso(Number(r.created_at)),
  };
}
