// A bad setting stops `tessera serve` with one line naming it and what to do, and no stack trace (docs/projects.md):
// an unreachable DATABASE_URL, a bad TRUST_PROXY or SMTP_URL, a missing data file, a port in use.
import { execFile } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "./helpers.js";
import { assetsBuiltOnce, freePort, ROOT } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");

/** `tessera serve` with these settings: its exit code and what it wrote to stderr. */
async function serve(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", LOG_LEVEL: "warn", BOOTSTRAP_PROJECT: "0" };
  try {
    await run(process.execPath, [BIN, "serve"], { cwd: ROOT, env: { ...base, HOST: "127.0.0.1", ...env }, timeout: 60_000 });
    return { code: 0, stderr: "" };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? -1, stderr: err.stderr ?? "" };
  }
}

describe("tessera serve with a bad setting", () => {
  let db: TestDatabase;
  let busy: net.Server;
  let busyPort: number;
  beforeAll(async () => {
    await assetsBuiltOnce();
    db = await freshDatabase("sqlite");
    busy = net.createServer().listen(0, "127.0.0.1");
    await new Promise((r) => busy.once("listening", r));
    busyPort = (busy.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => busy.close(r));
    await db?.drop();
  });

  const cases = async (): Promise<Array<[string, Record<string, string>, RegExp]>> => [
    [
      "an unreachable DATABASE_URL",
      { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/tessera` },
      /^Invalid setting DATABASE_URL: cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/tessera \(ECONNREFUSED\)/,
    ],
    [
      "a bad TRUST_PROXY",
      { ...db.env, TRUST_PROXY: "10.0.0.0/99" },
      /^Invalid setting TRUST_PROXY: "10\.0\.0\.0\/99" is not 1, true or a comma-separated list/,
    ],
    ["a bad SMTP_URL", { ...db.env, SMTP_URL: "mail.example.com" }, /^Invalid setting SMTP_URL: must be smtp:\/\//],
    [
      "a missing data file",
      { ...db.env, GEOIP_CITY_DB: "/nonexistent/city.mmdb" },
      /^Invalid setting GEOIP_CITY_DB: no such file \/nonexistent\/city\.mmdb: point it at/,
    ],
    [
      "a port in use",
      { ...db.env, PORT: String(busyPort) },
      /^Invalid setting PORT: \d+ is already in use on 127\.0\.0\.1: stop what listens there/,
    ],
  ];

  it("stops with one line naming the setting and the fix, no stack trace, for each", async () => {
    const all = await cases();
    const results = await Promise.all(all.map(([, env]) => serve(env)));
    all.forEach(([what, , line], i) => {
      const { code, stderr } = results[i] as { code: number; stderr: string };
      const lines = stderr.split("\n").filter((l) => l.trim() && !/^npm warn/.test(l));
      expect(code, what).not.toBe(0);
      expect(lines, `${what}: ${stderr}`).toHaveLength(1);
      expect(lines[0], what).toMatch(line);
      expect(stderr, what).not.toMatch(/\n\s+at /);
    });
  });
});
