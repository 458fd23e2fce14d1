// Versioned migrations, applied in name order by `tessera migrate` and at start (SPEC.md 3).
// Each area adds its own numbered file here; a number once shipped never changes.
import type { Kysely } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
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
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface MigrationReport {
  applied: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and regardless of) the typed schema.
export async function migrate(db: Kysely<any>): Promise<MigrationReport> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "tessera_migrations",
    migrationLockTableName: "tessera_migrations_lock",
    // Areas number their migrations independently; a store migrated before a lower number existed still takes it.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
