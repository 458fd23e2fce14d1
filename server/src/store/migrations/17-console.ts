// Migration 17 (the console; docs/console.md): operators, sessions, the audit log, hourly evaluation roll-ups (schema in
// ../tables/console.ts), and the evaluation indexes the console's searches need (store/evaluation-search.ts).
import { type Kysely, SqliteAdapter, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable("operators")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text")
    .addColumn("all_projects_role", "text")
    .addColumn("link_hash", "text")
    .addColumn("link_expires_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("operators_link").on("operators").column("link_hash").execute();

  await db.schema
    .createTable("operator_projects")
    .addColumn("operator_id", "text", (c) => c.notNull().references("operators.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("operator_projects_pk", ["operator_id", "project_id"])
    .execute();

  await db.schema
    .createTable("operator_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("operator_id", "text", (c) => c.notNull().references("operators.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("operator_sessions_operator").on("operator_sessions").column("operator_id").execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text")
    .addColumn("environment_id", "text")
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("actor_label", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text")
    .addColumn("target_id", "text")
    .addColumn("before", "text")
    .addColumn("after", "text")
    .addColumn("status", "integer")
    .addColumn("ip", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_log_project_time").on("audit_log").columns(["project_id", "created_at", "id"]).execute();

  // Counts per hour, and the same summed per UTC day (a month is 30 buckets instead of 720 hours).
  for (const table of ["evaluation_rollups", "evaluation_rollups_daily"]) {
    await db.schema
      .createTable(table)
      .addColumn("environment_id", "text", (c) => c.notNull())
      .addColumn("bucket", "bigint", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("count", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ["environment_id", "bucket", "action", "kind", "key"])
      // SQLite: rows stored in key order, so a period of one environment is one contiguous range (PostgreSQL has no
      // such table option; its primary key index serves the same range).
      .$call((t) => (sqlite ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema.createIndex(`${table}_bucket`).on(table).column("bucket").execute();
  }

  // Keyset pages newest first: every filter's index ends with (created_at, id), so a page is one index range read
  // in order, without a sort, whatever the table's size. user_id and ip already have (environment_id, x, created_at).
  for (const col of ["verdict", "action", "device_id"] as const) {
    await db.schema
      .createIndex(`evaluations_env_${col}_time`)
      .on("evaluations")
      .columns(["environment_id", col, "created_at", "id"])
      .execute();
  }
  await db.schema.createIndex("evaluations_env_time_id").on("evaluations").columns(["environment_id", "created_at", "id"]).execute();
  await db.schema.createIndex("users_env_email").on("users").columns(["environment_id", "email"]).execute();

  // Embedded store: planner statistics for the new indexes until PRAGMA optimize measures them (as in 007). A verdict
  // or an action holds a large share of an environment's rows; a device, a handful.
  if (sqlite) {
    const ROWS = 1_000_000;
    const stats: Record<string, number[]> = {
      evaluations_env_verdict_time: [ROWS, ROWS, ROWS / 5, 2, 1],
      evaluations_env_action_time: [ROWS, ROWS, ROWS / 5, 2, 1],
      evaluations_env_device_id_time: [ROWS, ROWS, 20, 2, 1],
      evaluations_env_time_id: [ROWS, ROWS, 2, 1],
      users_env_email: [ROWS, ROWS, 2],
    };
    await sql`analyze sqlite_master`.execute(db);
    for (const [idx, stat] of Object.entries(stats)) {
      const table = idx.startsWith("users") ? "users" : "evaluations";
      await sql`delete from sqlite_stat1 where idx = ${idx}`.execute(db).catch(() => undefined);
      await sql`insert into sqlite_stat1 (tbl, idx, stat) values (${table}, ${idx}, ${stat.join(" ")})`.execute(db);
    }
    await sql`analyze sqlite_master`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const ix of [
    "evaluations_env_verdict_time",
    "evaluations_env_action_time",
    "evaluations_env_device_id_time",
    "evaluations_env_time_id",
    "users_env_email",
  ])
    await db.schema.dropIndex(ix).ifExists().execute();
  for (const t of ["evaluation_rollups_daily", "evaluation_rollups", "audit_log", "operator_sessions", "operator_projects", "operators"])
    await db.schema.dropTable(t).ifExists().execute();
}
