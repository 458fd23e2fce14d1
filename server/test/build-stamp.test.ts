// What bin/tessera.mjs does with builds, on a copy of the launcher and scripts/build.mjs in a small repository of
// its own (two workspaces, no Vite: an install that cannot build, like `npm ci --omit=dev`): `--help` never builds, a
// package tarball left by `npm pack` is no input of a build, and a stale build is refused naming the file that changed.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./server-process.js";

const run = promisify(execFile);

describe("builds as the launcher sees them", () => {
  let repo: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
  };
  /** Stamps every workspace as built from its current sources, as scripts/build.mjs does after a build. */
  async function stampAll(): Promise<void> {
    const build = await import(`${pathToFileURL(path.join(repo, "scripts/build.mjs")).href}?t=${Date.now()}`);
    for (const ws of build.buildableWorkspaces()) {
      const { inputs, files } = build.buildInputs(ws);
      write(
        path.relative(repo, path.join(ws.dir, "dist/.build-stamp.json")),
        JSON.stringify({ inputs, built_at: "2026-01-01T00:00:00.000Z", files }),
      );
    }
  }
  const tessera = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [path.join(repo, "bin/tessera.mjs"), ...args], { cwd: repo, env: { PATH: process.env.PATH ?? "", ...env } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  beforeAll(async () => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-build-stamp-"));
    for (const file of ["bin/tessera.mjs", "scripts/build.mjs"]) write(file, fs.readFileSync(path.join(ROOT, file), "utf8"));
    write("package.json", JSON.stringify({ name: "tessera", type: "module", workspaces: ["sdk", "server"] }));
    write("package-lock.json", "{}");
    write("sdk/package.json", JSON.stringify({ name: "@tessera/sdk", type: "module", scripts: { build: "exit 1" } }));
    write("sdk/src/index.js", "export const sdk = 1;\n");
    write("sdk/dist/tessera.js", "/* built */\n");
    write(
      "server/package.json",
      JSON.stringify({ name: "@tessera/server", type: "module", scripts: { build: "exit 1" }, dependencies: { "@tessera/sdk": "*" } }),
    );
    write("server/src/cli.ts", "// the CLI's source\n");
    write("server/dist/cli.js", 'export async function main(argv) { console.log("help of " + argv.join(" ")); return 0; }\n');
    await stampAll();
  });
  afterAll(() => {
    fs.rmSync(repo, { recursive: true, force: true });
  });

  it("a tarball that `npm pack` left in sdk/ leaves every build current", async () => {
    write("sdk/tessera-sdk-0.1.0.tgz", "not a real tarball");
    const r = await tessera(["serve", "--help"], { NODE_ENV: "production" });
    expect(r.stdout).toContain("help of serve --help");
    const build = await import(`${pathToFileURL(path.join(repo, "scripts/build.mjs")).href}?t=${Date.now()}`);
    expect(build.buildableWorkspaces().map((w: unknown) => build.buildState(w))).toEqual(["current", "current"]);
  });

  it("`serve --help` with stale bundles prints the help and builds nothing (this install could not build: it would refuse)", async () => {
    write("sdk/src/index.js", "export const sdk = 2;\n");
    const r = await tessera(["serve", "--help"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe("help of serve --help\n");
    expect((await tessera(["--version"])).stdout).toBe("help of --version\n");
  });

  it("a production start on a stale build refuses in one line naming the file that changed, and what to do", async () => {
    const r = await tessera(["serve"], { NODE_ENV: "production" });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Not built from these sources: sdk \(stale: sdk\/src\/index\.js changed since the build\)\. /);
    expect(lines[0]).toContain("run `npm ci && npm run build`");
    // Any other command (the server's own build is stale too: it imports the SDK's contract).
    const cli = await tessera(["projects", "list"], { NODE_ENV: "production" });
    expect(cli.stderr).toMatch(/^Not built from these sources: server \(stale: sdk\/src\/index\.js changed since the build\)\. /);
  });

  it("a new file and a removed one are named too", async () => {
    write("sdk/src/extra.js", "export {};\n");
    fs.rmSync(path.join(repo, "server/src/cli.ts"));
    const r = await tessera(["projects", "list"], { NODE_ENV: "production" });
    expect(r.stderr).toContain(
      "server (stale: sdk/src/extra.js is new, sdk/src/index.js changed, server/src/cli.ts was removed since the build)",
    );
  });
});
