// The commands that manage the store itself rather than run with it open (docs/operations.md): `serve` starts the
// server, `migrate` applies the pending migrations, `backup` writes a consistent copy while servers keep running.
import path from "node:path";
import v8 from "node:v8";
import { serve } from "../server.js";
import { BackupError, backupPostgres, backupSqlite } from "../store/backup.js";
import { openStore } from "../store/db.js";
import { migrate } from "../store/migrations/index.js";
import { type Command, UsageError } from "./options.js";

export const storeCommands: Command[] = [
  {
    name: "serve",
    usage: "",
    summary: 'Start the server (PORT, HOST, DATA_DIR or DATABASE_URL; see README "Configuration")',
    start: async ({ config }) => {
      // V8's allocation-site pretenuring allocates straight in the old generation what it saw survive; on PostgreSQL a
      // request waits for the database across scavenges, so its objects were pretenured and, dead, still held what
      // they point to through every scavenge: 12 KiB promoted per evaluation, 1 KiB without it, the embedded store
      // unchanged at 0.4 (docs/decisions/young-generation.md). Set before the server allocates anything of its own.
      v8.setFlagsFromString("--no-allocation-site-pretenuring");
      await serve(config);
      return -1; // keeps running
    },
  },
  {
    name: "migrate",
    usage: "",
    summary: "Apply pending database migrations (serve also applies them at start)",
    start: async ({ config }) => {
      const store = openStore({ databaseUrl: config.DATABASE_URL, sqlitePath: config.sqlitePath, durability: config.DURABILITY });
      try {
        const { applied } = await migrate(store.db);
        console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Already up to date");
      } finally {
        await store.close();
      }
      return 0;
    },
  },
  {
    name: "backup",
    usage: "FILE [--force]",
    summary: "Write a consistent copy of the store to FILE while servers keep running (SQLite: VACUUM INTO; PostgreSQL: pg_dump)",
    details: [
      "  --force   replace FILE if it exists",
      "The copy holds contacts and, unless SERVER_KEY is set, the generated master key: keep it like the database (it is",
      'written 0600). Restore: docs/operations.md, "Backup and restore".',
    ].join("\n"),
    options: { force: { type: "boolean" } },
    start: async ({ config, values, positionals }) => {
      const target = positionals[0];
      if (!target) throw new UsageError("FILE is missing");
      const file = path.resolve(target);
      const force = values.force === true;
      try {
        const report = config.DATABASE_URL
          ? await backupPostgres(config.DATABASE_URL, file, { force })
          : backupSqlite(config.sqlitePath, file, { force });
        console.log(`Backed up to ${report.file} (${(report.bytes / 1048576).toFixed(1)} MiB; ${report.method})`);
        return 0;
      } catch (e) {
        if (!(e instanceof BackupError)) throw e;
        console.error(`tessera backup: ${e.message}`);
        return 1;
      }
    },
  },
];
