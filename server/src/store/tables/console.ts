// Tables of the console (docs/console.md): operators and their project grants, their sessions, the audit log, and the
// hourly roll-ups of evaluations that the overview reads instead of scanning the evaluations table.

export interface OperatorsTable {
  id: string;
  /** Lower-cased. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (console/passwords.ts); null until the operator has used a sign-in link. */
  password_hash: string | null;
  /** Installation administrators (`--all-projects`): their role on every project; null for per-project operators. */
  all_projects_role: string | null;
  /** sha256 of the current one-time sign-in link's token; the token itself is never stored. */
  link_hash: string | null;
  link_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface OperatorProjectsTable {
  operator_id: string;
  project_id: string;
  role: string;
}

export interface OperatorSessionsTable {
  /** sha256 of the cookie's token: a copy of the table does not sign anyone in. */
  id: string;
  operator_id: string;
  created_at: number;
  expires_at: number;
}

export interface AuditLogTable {
  id: string;
  /** Null for installation-level entries (a sign-in). */
  project_id: string | null;
  environment_id: string | null;
  /** operator | key | cli */
  actor_type: string;
  actor_id: string | null;
  /** The operator's email or the key's prefix, kept as it was then. */
  actor_label: string;
  /** e.g. policy.update, list.add, operator.sign_in */
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** JSON of the object before and after the change (secrets removed). */
  before: string | null;
  after: string | null;
  /** The HTTP status answered; null while the change is under way (or if the process died during it). */
  status: number | null;
  ip: string | null;
  created_at: number;
}

export interface EvaluationRollupsTable {
  environment_id: string;
  /** Start of the hour, ms since the epoch (UTC). */
  bucket: number;
  action: string;
  /** verdict | reason */
  kind: string;
  key: string;
  count: number;
}

export interface ConsoleTables {
  operators: OperatorsTable;
  operator_projects: OperatorProjectsTable;
  operator_sessions: OperatorSessionsTable;
  audit_log: AuditLogTable;
  evaluation_rollups: EvaluationRollupsTable;
  /** The same counts per UTC day (bucket: the day's start), kept equal to the sum of the day's rolled-up hours. */
  evaluation_rollups_daily: EvaluationRollupsTable;
}
