// Migrations are atomic (docs/storage.md, docs/operations.md): a crash after any statement of `tessera migrate` leaves a store that the next
// start migrates to completion, with the same schema as a store migrated in one go — on both stores.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/db.js";
import { migrate } from "../src/store/migrations/index.js";
import { describeStores, freshDatabase, type StoreKind } from "./helpers.js";
import { ROOT } from "./server-process.js";
import { afterEachStatement } from "./statement-hook.js";

const run = promisify(execFile);
const FIXTURE = path.join(ROOT, "server", "test", "fixtures", "migrate-until.ts");

/** Everything the migrations create, in a comparable form. */
async function schemaOf(kind: StoreKind, target: string): Promise<string[]> {
  if (kind === "sqlite") {
    const db = new SQLite(target, { readonly: true });
    try {
      const objects = db
        .prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by type, name")
        .all() as Array<Record<string, string>>;
      const applied = db.prepare("select name from tessera_migrations order by name").all() as Array<{ name: string }>;
      return [...objects.map((o) => `${o.type} ${o.name} ${o.tbl_name} ${o.sql}`), ...applied.map((a) => `applied ${a.name}`)];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  try {
    const columns = await client.query(
      "select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = 'public' order by 1, 2",
    );
    const indexes = await client.query("select indexname, indexdef from pg_indexes where schemaname = 'public' order by 1");
    const applied = await client.query("select name from tessera_migrations order by name");
    return [
      ...columns.rows.map((r) => `column ${r.table_name}.${r.column_name} ${r.data_type} ${r.is_nullable}`),
      ...indexes.rows.map((r) => `index ${r.indexname} ${r.indexdef}`),
      ...applied.rows.map((r) => `applied ${r.name}`),
    ];
  } finally {
    await client.end();
  }
}

async function migrateStore(kind: StoreKind, target: string): Promise<void> {
  const store = openStore(kind === "sqlite" ? { sqlitePath: target } : { databaseUrl: target });
  try {
    await migrate(store.db);
  } finally {
    await store.close();
  }
}

describe("a crash at every statement of the migrations on sqlite", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-migrate-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("leaves a store that the next start migrates to the complete schema", async () => {
    const reference = path.join(dir, "reference.db");
    await migrateStore("sqlite", reference);
    const expected = await schemaOf("sqlite", reference);

    // A crash image after each statement: the database file and its write-ahead log as the disk holds them at that
    // instant (better-sqlite3 is synchronous, so nothing else writes meanwhile) — what a SIGKILL there would leave.
    const file = path.join(dir, "crashing.db");
    const images: string[] = [];
    const remove = afterEachStatement((n) => {
      const image = path.join(dir, `image-${n}`);
      fs.mkdirSync(image);
      for (const suffix of ["", "-wal"])
        if (fs.existsSync(file + suffix)) fs.copyFileSync(file + suffix, path.join(image, `t.db${suffix}`));
      images.push(image);
    });
    try {
      await migrateStore("sqlite", file);
    } finally {
      remove();
    }
    // The whole migration is dozens of statements; every one of them is a kill point.
    expect(images.length).toBeGreaterThan(50);

    const broken: string[] = [];
    for (const image of images) {
      const db = path.join(image, "t.db");
      try {
        await migrateStore("sqlite", db);
        expect(await schemaOf("sqlite", db)).toEqual(expected);
      } catch (e) {
        broken.push(`${path.basename(image)}: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    expect(broken).toEqual([]);
    // Every crash image is migrated to the end: quadratic in the statements (over 150 of them), a minute or more on a
    // loaded 2-core machine. The deadline only bounds a broken run.
  }, 300_000);
});

describeStores("a SIGKILL mid-migration on %s", (kind) => {
  it("is followed by a start that completes the migration", async () => {
    const reference = await freshDatabase(kind);
    const target = (env: Record<string, string>) => env.DATABASE_URL ?? path.join(env.DATA_DIR as string, "tessera.db");
    try {
      await migrateStore(kind, target(reference.env));
      const expected = await schemaOf(kind, target(reference.env));
      const probe = await freshDatabase(kind);
      const { stdout } = await run(process.execPath, ["--import", "tsx", FIXTURE], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, [kind === "sqlite" ? "SQLITE_PATH" : "DATABASE_URL"]: target(probe.env) },
      }).finally(() => probe.drop());
      const total = (JSON.parse(stdout.trim()) as { statements: number }).statements;
      // A few real kills spread over the run (each is a process start); the crash images above cover every statement.
      for (const killAt of [Math.ceil(total * 0.2), Math.ceil(total * 0.5), Math.ceil(total * 0.8)]) {
        const db = await freshDatabase(kind);
        try {
          const env = {
            PATH: process.env.PATH,
            KILL_AFTER: String(killAt),
            [kind === "sqlite" ? "SQLITE_PATH" : "DATABASE_URL"]: target(db.env),
          };
          const killed = await run(process.execPath, ["--import", "tsx", FIXTURE], { cwd: ROOT, env }).then(
            () => "exited",
            (e: { signal?: string }) => e.signal,
          );
          expect(killed).toBe("SIGKILL");
          await migrateStore(kind, target(db.env));
          expect(await schemaOf(kind, target(db.env))).toEqual(expected);
        } finally {
          await db.drop();
        }
      }
    } finally {
      await reference.drop();
    }
  });
});
