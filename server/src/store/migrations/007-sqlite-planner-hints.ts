// Migration 007 (embedded store only): planner statistics from the first evaluation on.
// Without statistics SQLite assumes `environment_id = ?` picks out ~10 rows, so it answers "this visitor token or
// this fingerprint" by walking an environment's whole device table through one index instead of the two indexed
// lookups (MULTI-INDEX OR): 2 ms per evaluation at 12k evaluations and growing (bench profile). We seed
// sqlite_stat1 with what is true of every deployment — a few environments hold nearly all rows, and the columns
// after environment_id are selective — for indexes that have no statistics yet. PRAGMA optimize (db.ts) replaces
// them with measured ones as the tables grow.
import { type Kysely, SqliteAdapter, sql } from "kysely";

/** Rows assumed per table, and per value of each index column after environment_id (then 2, then 1). */
const ROWS = 1_000_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await seedPlannerStatistics(db);
}

/**
 * Seeds sqlite_stat1 for the indexes that have no statistics yet (later migrations call it for their new indexes);
 * `only`: just these indexes (two statements per index spared for every other one).
 */
export async function seedPlannerStatistics(db: Kysely<unknown>, only?: readonly string[]): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  // Creates sqlite_stat1 (empty tables get no rows).
  await sql`analyze`.execute(db);
  const indexes = await sql<{ name: string; tbl_name: string }>`
    select name, tbl_name from sqlite_master where type = 'index' and name not like 'sqlite_%'`.execute(db);
  for (const ix of indexes.rows) {
    if (only && !only.includes(ix.name)) continue;
    const cols = await sql<{ name: string }>`select name from pragma_index_info(${ix.name})`.execute(db);
    if (cols.rows[0]?.name !== "environment_id") continue;
    const has = await sql<{ n: number }>`select count(*) as n from sqlite_stat1 where idx = ${ix.name}`.execute(db);
    if (Number(has.rows[0]?.n ?? 0) > 0) continue;
    const per = cols.rows.map((_, i) => (i === 0 ? ROWS : i === 1 ? 10 : i === 2 ? 2 : 1));
    await sql`insert into sqlite_stat1 (tbl, idx, stat) values (${ix.tbl_name}, ${ix.name}, ${[ROWS, ...per].join(" ")})`.execute(db);
  }
  // Makes the planner read the new statistics on this connection.
  await sql`analyze sqlite_master`.execute(db);
}

export async function down(): Promise<void> {}
