// The `tessera` command line (docs/operations.md, docs/projects.md): --help on any command prints that command's help and does nothing
// else, --version, one-line errors, key labels, projects rename, and development starts that reuse the demo site's key
// instead of adding one per start. The real binary where the process matters, main() in process elsewhere.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli.js";
import { describeStores, migratedDatabase } from "./helpers.js";
import { freePort, ROOT, runCli, startServer } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** The real binary: exit code and both outputs. */
async function tessera(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", LOG_LEVEL: "warn", BOOTSTRAP_PROJECT: "0" };
  return run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** main() in this process, its console output captured. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    const code = await main(args);
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe("the tessera binary", () => {
  let dir: string;
  // On a fresh checkout the first command builds the server (its output on stderr); the tests below read commands
  // that run an existing build, whose stderr must be empty.
  beforeAll(async () => {
    const first = await tessera(["--version"], {});
    expect(first.stdout).toBe(`${VERSION}\n`);
  }, 120_000);
  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tessera-cli-")), "data");
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it("serve --help prints the help and starts nothing; migrate --help migrates nothing; --version prints the version", async () => {
    const port = await freePort();
    const serve = await tessera(["serve", "--help"], { DATA_DIR: dir, PORT: String(port) });
    expect(serve).toMatchObject({ code: 0, stderr: "" });
    expect(serve.stdout).toMatch(/^Usage: tessera serve\n/);
    expect(
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => "listening",
        () => "nothing",
      ),
    ).toBe("nothing");
    const migrate = await tessera(["migrate", "-h"], { DATA_DIR: dir });
    expect(migrate.stdout).toMatch(/^Usage: tessera migrate\n/);
    // No store was opened, so nothing was created.
    expect(fs.existsSync(dir)).toBe(false);
    expect((await tessera(["--version"], { DATA_DIR: dir })).stdout.trim()).toBe(VERSION);
  });

  it("a mistake is one line naming it and where the help is, with exit code 2", async () => {
    const r = await tessera(["projects", "create", "--nmae", "x"], { DATA_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual(["tessera: unknown option '--nmae' (tessera projects create --help)"]);
  });
});

describe("tessera help and errors", () => {
  const commands = [
    "serve",
    "migrate",
    "projects create",
    "projects list",
    "projects rename",
    "projects origins",
    "projects settings",
    "keys create",
    "keys list",
    "keys revoke",
    "keys identity-secret",
  ];

  it("every command answers --help with its own usage, even with its arguments missing or wrong", async () => {
    const overview = await cli(["--help"]);
    expect(overview.code).toBe(0);
    for (const name of commands) {
      expect(overview.stdout).toContain(`  ${name}`);
      for (const extra of [[], ["--nope", "x"], ["--env", "staging"]]) {
        const r = await cli([...name.split(" "), ...extra, "--help"]);
        expect(r, name).toMatchObject({ code: 0, stderr: "" });
        expect(r.stdout).toMatch(new RegExp(`^Usage: tessera ${name}\\b`));
        expect(r.stdout).toContain(" -h, --help ");
      }
    }
    expect((await cli(["help", "keys", "create"])).stdout).toMatch(/^Usage: tessera keys create PROJECT_ID --env ENV \[--label TEXT\]/);
    expect((await cli(["keys", "--help"])).stdout.split("\n")).toHaveLength(4);
  });

  it("unknown commands, missing subcommands and bad values are one line each", async () => {
    const cases: [string[], string][] = [
      [["frobnicate"], "tessera: unknown command: frobnicate (tessera --help lists the commands)"],
      [["projects"], "tessera: projects needs a subcommand: create, list, rename, origins, settings (tessera --help)"],
      [["keys", "rotate"], "tessera: unknown command: keys rotate (tessera --help)"],
      [["projects", "create", "--name"], "tessera: option '--name <value>' argument missing (tessera projects create --help)"],
      [["keys", "create", "p1", "--env", "staging"], "tessera: --env must be one of development, production (tessera keys create --help)"],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toBe(line);
      expect(r.stdout).toBe("");
    }
  });
});

describeStores("tessera commands on %s", (kind) => {
  let db: Awaited<ReturnType<typeof migratedDatabase>>;
  const saved = { ...process.env };
  beforeEach(async () => {
    db = await migratedDatabase(kind);
    Object.assign(process.env, { NODE_ENV: "test", LOG_LEVEL: "silent", BOOTSTRAP_PROJECT: "0", ...db.env });
  });
  afterEach(async () => {
    process.env = { ...saved };
    await db.drop();
  });

  it("keys create --label labels a key in keys list; projects rename renames", async () => {
    const created = await cli(["projects", "create", "--name", "Default project", "--json"]);
    const project = JSON.parse(created.stdout) as { id: string };
    const key = await cli(["keys", "create", project.id, "--env", "production", "--label", "billing worker", "--json"]);
    expect(key.code).toBe(0);
    const keys = JSON.parse((await cli(["keys", "list", project.id, "--json"])).stdout) as { id: string; label: string | null }[];
    expect(keys.map((k) => k.label)).toEqual(["created with the project", "created with the project", "billing worker"]);
    expect((await cli(["keys", "list", project.id])).stdout).toContain(`${JSON.parse(key.stdout).id}  production  sk_live_`);
    expect((await cli(["keys", "create", project.id, "--env", "production", "--label", ""])).stderr).toMatch(/--label must be one line/);

    expect((await cli(["projects", "rename", project.id, "--name", "Acme Notes"])).code).toBe(0);
    expect(JSON.parse((await cli(["projects", "list", "--json"])).stdout)[0].name).toBe("Acme Notes");
    expect((await cli(["projects", "rename", "prj_nope", "--name", "x"])).stderr).toBe(
      "tessera: no project prj_nope (tessera projects list shows them) (tessera projects rename --help)",
    );
  });

  it("serve runs with AsyncContextFrame on Node 22 and 23, in the process that was started (same id)", async () => {
    const server = await startServer(db.env);
    try {
      const cmdline = fs.readFileSync(`/proc/${server.child.pid}/cmdline`, "utf8").split("\0");
      const wanted = Number(process.versions.node.split(".")[0]) < 24;
      expect(cmdline.includes("--experimental-async-context-frame")).toBe(wanted);
      expect(cmdline).toContain("serve");
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("operators create, run beside a server on another port, prints a link to that server (not :8080)", async () => {
    const server = await startServer(db.env);
    try {
      // The CLI has neither the server's PORT nor its PUBLIC_URL: only the store.
      const out = await runCli(db.env, ["operators", "create", "--email", "port@example.com", "--role", "owner", "--all-projects"]);
      expect(out).toContain(`${server.url}/console/#/welcome?token=`);
      expect(out).not.toContain(":8080");
    } finally {
      await server.stop();
    }
    // PUBLIC_URL, when the CLI has it, still decides.
    const own = await runCli({ ...db.env, PUBLIC_URL: "https://tessera.example.com" }, [
      "operators",
      "link",
      "--email",
      // As typed or pasted: the address is trimmed and compared without case, as the console does.
      " Port@Example.com ",
    ]);
    expect(own).toContain("https://tessera.example.com/console/#/welcome?token=");
  });

  it("development starts reuse one labelled key for the demo site instead of adding one per start", async () => {
    const env = { ...db.env, NODE_ENV: "development", BOOTSTRAP_PROJECT: "1" };
    for (let i = 0; i < 2; i++) {
      const server = await startServer(env);
      // The demo site works with its key: its backend reads an evaluation it did not create (404, not 401).
      const r = await fetch(`${server.url}/demo/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user: "u", evaluation_id: "ev_missing" }),
      });
      expect(await r.json()).toEqual({ message: "Refused: unknown evaluation" });
      await server.stop();
    }
    const [project] = JSON.parse(await runCli(db.env, ["projects", "list", "--json"])) as { id: string }[];
    const keys = JSON.parse(await runCli(db.env, ["keys", "list", project!.id, "--json"])) as {
      label: string;
      revoked_at: number | null;
    }[];
    expect(keys.map((k) => [k.label, k.revoked_at === null])).toEqual([
      ["created with the project", true],
      ["created with the project", true],
      ["demo site (development server)", true],
    ]);
  });
});
