// A production start says what it loses without SERVER_KEY, PUBLIC_URL or SMTP_URL, one warning line each, naming
// the setting and how to set it: spawned as an operator starts it (`NODE_ENV=production tessera serve`).

import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, PG_AVAILABLE, type TestDatabase } from "./helpers.js";
import { type ServerProcess, startServer } from "./server-process.js";

/** The warn-level lines (pino JSON) the process printed. */
function warnings(server: ServerProcess): string[] {
  return server
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level === 40)
    .map((l) => l.msg);
}

describe("production start warnings", () => {
  let server: ServerProcess | undefined;
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("without SERVER_KEY, PUBLIC_URL and SMTP_URL: one line each, saying what is lost and how to set it", async () => {
    db = await freshDatabase("sqlite");
    server = await startServer({ ...db.env, NODE_ENV: "production", HOST: "127.0.0.1" }, { withoutPublicUrl: true });
    const lines = warnings(server);
    const about = (name: string) => lines.filter((l) => l.startsWith(`${name} is not set: `));
    expect(about("SERVER_KEY")).toHaveLength(1);
    expect(about("SERVER_KEY")[0]).toMatch(/kept in the database.*Set SERVER_KEY to 32 or more random characters/);
    expect(about("PUBLIC_URL")).toHaveLength(1);
    expect(about("PUBLIC_URL")[0]).toMatch(/challenge links.*name http:\/\/localhost:\d+.*Set PUBLIC_URL to this server's public address/);
    expect(about("SMTP_URL")).toHaveLength(1);
    expect(about("SMTP_URL")[0]).toMatch(/no one-time code can be sent by email.*Set SMTP_URL to your mail server/);
  });

  it.skipIf(!PG_AVAILABLE)(
    "on PostgreSQL, one line when autovacuum is off (plans made on small tables would stay), none when on",
    async () => {
      db = await freshDatabase("postgres");
      const c = new pg.Client({ connectionString: db.env.DATABASE_URL });
      await c.connect();
      const off = (await c.query("select current_setting('autovacuum') as v")).rows[0].v === "off";
      await c.end();
      server = await startServer({ ...db.env, NODE_ENV: "production", HOST: "127.0.0.1", SERVER_KEY: "k".repeat(48) });
      const about = warnings(server).filter((l) => l.startsWith("PostgreSQL runs with autovacuum=off: "));
      expect(about).toHaveLength(off ? 1 : 0);
      if (off) expect(about[0]).toMatch(/Turn autovacuum on, or run ANALYZE/);
    },
  );

  it("look-alike: with the three set, a production start warns about none of them", async () => {
    db = await freshDatabase("sqlite");
    server = await startServer({
      ...db.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      SERVER_KEY: "k".repeat(48),
      SMTP_URL: "smtp://127.0.0.1:2525",
    });
    expect(warnings(server).filter((l) => /^(SERVER_KEY|PUBLIC_URL|SMTP_URL) is not set/.test(l))).toEqual([]);
  });
});
