// Before any test: find out once whether PostgreSQL is reachable. With CI=true an unreachable PostgreSQL fails the
// run; elsewhere its tests are skipped with a loud notice (README: how to start it).
import pg from "pg";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("select 1");
    process.env.TESSERA_TEST_PG = "1";
  } catch (e) {
    if (process.env.CI === "true")
      throw new Error(`PostgreSQL is unreachable at ${ADMIN_URL} and CI=true: failing, not skipping. (${(e as Error).message})`);
    process.env.TESSERA_TEST_PG = "0";
    const line = "!".repeat(100);
    console.warn(
      `\n${line}\n!!! PostgreSQL unreachable at ${ADMIN_URL}: every PostgreSQL store test is SKIPPED.\n!!! Start it (see README) or set TEST_DATABASE_URL.\n${line}\n`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
