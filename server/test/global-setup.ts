// Before any test: check the store switch (test-stores.ts), find out once whether PostgreSQL is reachable, and make the
// migrated templates the tests copy (templates.ts). With CI=true, or TESSERA_TEST_STORES naming it, an unreachable
// PostgreSQL fails the run; elsewhere its tests are skipped with a loud notice (README: how to start it).
import pg from "pg";
import { dropOtherPgTemplates, dropOtherSqliteTemplates, pgTemplate, schemaHash, sqliteTemplate } from "./templates.js";
import { testStores } from "./test-stores.js";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Set on the first call: the root config and each vitest project (vite.config.ts) call this setup, in one process. */
const ONCE = Symbol.for("tessera.test.global-setup");

export default function setup(): Promise<void> {
  const g = globalThis as { [ONCE]?: Promise<void> };
  g[ONCE] ??= prepare().catch((e: Error) => {
    // Said here too: some vitest versions and settings (experimental.fsModuleCache) fail to print a global setup's error.
    console.error(`\n${e.message}\n`);
    throw e;
  });
  return g[ONCE];
}

async function prepare(): Promise<void> {
  const stores = testStores();
  const hash = schemaHash();
  dropOtherSqliteTemplates(hash);
  // Tests that need just some store use SQLite, whatever the switch says.
  await sqliteTemplate(hash);
  if (!stores.includes("postgres")) {
    process.env.TESSERA_TEST_PG = "0";
    console.warn(`\nTESSERA_TEST_STORES=${process.env.TESSERA_TEST_STORES}: the PostgreSQL suites are skipped.\n`);
    return;
  }
  // 10 s: on a loaded 2-core machine a connection took more than 3 s, and the PostgreSQL suites were skipped.
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query("select 1");
    process.env.TESSERA_TEST_PG = "1";
  } catch (e) {
    // Skipping is for a machine without PostgreSQL; in CI, or when TESSERA_TEST_STORES asks for it, the run fails.
    const why =
      process.env.CI === "true" ? "CI=true" : process.env.TESSERA_TEST_STORES && `TESSERA_TEST_STORES=${process.env.TESSERA_TEST_STORES}`;
    if (why) throw new Error(`PostgreSQL is unreachable at ${ADMIN_URL} and ${why}: failing, not skipping. (${(e as Error).message})`);
    process.env.TESSERA_TEST_PG = "0";
    const line = "!".repeat(100);
    console.warn(
      `\n${line}\n!!! PostgreSQL unreachable at ${ADMIN_URL}: every PostgreSQL store test is SKIPPED.\n!!! Start it (see README) or set TEST_DATABASE_URL.\n${line}\n`,
    );
    return;
  } finally {
    await client.end().catch(() => {});
  }
  await dropOtherPgTemplates(ADMIN_URL, hash);
  await pgTemplate(ADMIN_URL, hash);
}
