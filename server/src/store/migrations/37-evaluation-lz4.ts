// Migration 37 (docs/decisions/postgres-statement-costs.md): on PostgreSQL, an evaluation's largest values (its checks,
// about 2.4 KB of JSON text, and its risks) are compressed with lz4 instead of pglz, PostgreSQL's default. The row of an
// evaluation is over the size past which PostgreSQL compresses its values, so every insert compressed them: pglz cost
// the backends about 30 µs of CPU per evaluation more than lz4 (an insert of 6,000 bench evaluations' values, three
// times each alternated: 392–613 ms with pglz, 284–372 ms with lz4), for values 16 % larger (1,068 → 1,235 bytes
// for the checks). Rows already stored keep their compression; both are read alike. A PostgreSQL built without lz4
// (`default_toast_compression` does not offer it) keeps pglz. The embedded store does not compress.
import { type Kysely, PostgresAdapter, sql } from "kysely";

const COLUMNS = ["checks", "risks"] as const;

async function hasLz4(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ lz4: boolean }>`
    select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
  return rows[0]?.lz4 === true;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter) || !(await hasLz4(db))) return;
  for (const column of COLUMNS) await sql`alter table evaluations alter column ${sql.ref(column)} set compression lz4`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const column of COLUMNS) await sql`alter table evaluations alter column ${sql.ref(column)} set compression default`.execute(db);
}
