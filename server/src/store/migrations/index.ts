// Versioned migrations, applied in name order by `tessera migrate` and at start (docs/storage.md), each in its own
// transaction on both stores (SQLite too: store/db.ts), so a crash mid-migration leaves the store as it was before
// that migration. Each area adds its own numbered file here; a number once shipped never changes.
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import * as m13 from "./13-environment-settings.js";
import * as m14 from "./14-device-identity.js";
import * as m15 from "./15-evaluation-network.js";
import * as m16b from "./16b-drop-challenge-converted-at.js";
import * as m17 from "./17-console.js";
import * as m18 from "./18-velocity-counters.js";
import * as m18b from "./18b-interrupted-sends.js";
import * as m19 from "./19-first-day.js";
import * as m20 from "./20-jobs.js";
import * as m21 from "./21-evaluation-exits.js";
import * as m22 from "./22-evaluation-zone.js";
import * as m23 from "./23-evaluation-confirmed.js";
import * as m24 from "./24-evaluation-language.js";
import * as m25 from "./25-policy-default-digest.js";
import * as m26 from "./26-challenge-source.js";
import * as m27 from "./27-recognised-tokens.js";
import * as m30 from "./30-familiarity.js";
import * as m33 from "./33-key-last-used.js";
import * as m34 from "./34-evaluation-indexes.js";
import * as m35 from "./35-drop-evaluations-time.js";
import * as m36 from "./36-partial-token-indexes.js";
import * as m37 from "./37-evaluation-ip-key.js";
import * as m38 from "./38-identification-token.js";
import * as m39 from "./39-email-key-domains.js";
import * as m001 from "./001-core.js";
import * as m002 from "./002-risk.js";
import * as m003 from "./003-challenges.js";
import * as m004 from "./004-webhooks.js";
import * as m005 from "./005-rate-limits.js";
import * as m006 from "./006-hot-path-indexes.js";
import * as m007 from "./007-sqlite-planner-hints.js";

const migrations: Record<string, Migration> = {
  "001-core": m001,
  "002-risk": m002,
  "003-challenges": m003,
  "004-webhooks": m004,
  "005-rate-limits": m005,
  "006-hot-path-indexes": m006,
  "007-sqlite-planner-hints": m007,
  "13-environment-settings": m13,
  "14-device-identity": m14,
  "15-evaluation-network": m15,
  "16b-drop-challenge-converted-at": m16b,
  "17-console": m17,
  "18-velocity-counters": m18,
  "18b-interrupted-sends": m18b,
  "19-first-day": m19,
  "20-jobs": m20,
  "21-evaluation-exits": m21,
  "22-evaluation-zone": m22,
  "23-evaluation-confirmed": m23,
  "24-evaluation-language": m24,
  "25-policy-default-digest": m25,
  "26-challenge-source": m26,
  "27-recognised-tokens": m27,
  "30-familiarity": m30,
  "33-key-last-used": m33,
  "34-evaluation-indexes": m34,
  "35-drop-evaluations-time": m35,
  "36-partial-token-indexes": m36,
  "37-evaluation-ip-key": m37,
  "38-identification-token": m38,
  "39-email-key-domains": m39,
};

/** Every migration this version knows: a store lacking one is not ready (store/readiness.ts). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface MigrationReport {
  applied: string[];
}

/**
 * The store holds migrations this version does not know: a newer Tessera migrated it. Kysely's migrator calls that
 * "corrupted migrations"; the real story is a downgrade, and the way out is the newer release or a backup.
 */
export class NewerSchemaError extends Error {
  constructor(readonly unknown: string[]) {
    const shown = unknown.length > 3 ? `${unknown.slice(0, 3).join(", ")}, …` : unknown.join(", ");
    super(
      `the database was migrated by a newer Tessera (migration ${shown}): run that release or a later one, or restore a backup taken before the upgrade`,
    );
  }
}

/**
 * Kysely's own migration lock on PostgreSQL (an advisory lock of this key, postgres-adapter.js). Taken here around the
 * whole migration, its checks of the migration tables included, which Kysely runs before its lock: 30 servers started
 * together on an empty database had one die with 42703 when its introspection read the catalog while another
 * migrated. The same key makes a migrator of an older release wait for this one too; advisory locks are re-entrant
 * within a session, so Kysely's own lock on this connection is granted at once.
 */
const MIGRATION_LOCK_KEY = "3853314791062309107";

/** A migrator on the embedded store waits this long, at most, for another process's migration to end. */
const SQLITE_WAIT_MS = 10 * 60 * 1000;
const SQLITE_RETRY_MS = 200;

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and regardless of) the typed schema.
export async function migrate(db: Kysely<any>): Promise<MigrationReport> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return migrateSqlite(db);
  // The pool's statement_timeout (store/db.ts) is for requests: building an index on a large table may take longer.
  return db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    try {
      // Other instances starting now wait here, then find every migration applied. The lock is the session's: a
      // migrator that dies releases it with its connection.
      await sql`select pg_advisory_lock(${sql.raw(MIGRATION_LOCK_KEY)})`.execute(conn);
      try {
        const applied: string[] = [];
        await migrateOn(conn, "postgres", applied);
        return { applied };
      } finally {
        await sql`select pg_advisory_unlock(${sql.raw(MIGRATION_LOCK_KEY)})`.execute(conn);
      }
    } finally {
      await sql`reset statement_timeout`.execute(conn);
    }
  });
}

/**
 * SQLite serialises writers with its file lock: each migration's transaction begins IMMEDIATE (store/db.ts), so a
 * second process waits for the first one's migration, then reads what is applied and finds nothing to do. A wait past
 * the connection's busy timeout (a long migration) fails with SQLITE_BUSY: try again until the other process is done.
 */
// biome-ignore lint/suspicious/noExplicitAny: as above
async function migrateSqlite(db: Kysely<any>): Promise<MigrationReport> {
  const deadline = Date.now() + SQLITE_WAIT_MS;
  const applied: string[] = [];
  for (;;) {
    try {
      await migrateOn(db, "sqlite", applied);
      return { applied };
    } catch (e) {
      const busy = /^SQLITE_BUSY/.test(String((e as { code?: unknown }).code));
      if (!busy || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, SQLITE_RETRY_MS));
    }
  }
}

/** The migrations the store has applied (none when it has no migration table yet). */
// biome-ignore lint/suspicious/noExplicitAny: as above
async function appliedNames(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<string[]> {
  const exists =
    dialect === "postgres"
      ? (await sql<{ found: boolean }>`select to_regclass('tessera_migrations') is not null as found`.execute(db)).rows[0]?.found
      : (await sql`select 1 from sqlite_master where type = 'table' and name = 'tessera_migrations'`.execute(db)).rows.length > 0;
  if (!exists) return [];
  return (await sql<{ name: string }>`select name from tessera_migrations`.execute(db)).rows.map((r) => r.name);
}

/** Applies what is pending, one migration per step; each one applied is added to `applied` as it commits. */
// biome-ignore lint/suspicious/noExplicitAny: as above
async function migrateOn(db: Kysely<any>, dialect: "sqlite" | "postgres", applied: string[]): Promise<void> {
  const known = new Set(MIGRATION_NAMES);
  const unknown = (await appliedNames(db, dialect)).filter((n) => !known.has(n)).sort();
  if (unknown.length) throw new NewerSchemaError(unknown);
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "tessera_migrations",
    migrationLockTableName: "tessera_migrations_lock",
    // Areas number their migrations independently; a store migrated before a lower number existed still takes it.
    allowUnorderedMigrations: true,
  });
  // One migration per step: migrateToLatest would run every pending one in a single transaction, so a failure in the
  // last would undo the others too. Each step re-reads what is applied, under the migration lock (PostgreSQL).
  for (;;) {
    const { error, results } = await migrator.migrateUp();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    const done = (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    if (done.length === 0) return;
    applied.push(...done);
  }
}
