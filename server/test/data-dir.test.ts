// A DATA_DIR the server cannot create or write stops `tessera serve` and `tessera migrate` with one line naming
// DATA_DIR, the folder and the cause, and no stack trace (docs/projects.md#the-cli): a folder to create under a
// read-only disk (Node's recursive mkdir said ENOENT there, and the start ended in a stack trace), a path through a file.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assetsBuiltOnce, ROOT } from "./server-process.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "bin", "tessera.mjs");

/** The bundles and the server's own build (any `tessera` command makes it when stale, on stderr): before the runs. */
async function builtOnce(): Promise<void> {
  await assetsBuiltOnce();
  await run(process.execPath, [BIN, "--version"], { cwd: ROOT });
}

async function tessera(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", LOG_LEVEL: "warn", BOOTSTRAP_PROJECT: "0" };
  try {
    await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...base, HOST: "127.0.0.1", PORT: "0", ...env }, timeout: 60_000 });
    return { code: 0, stderr: "" };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? -1, stderr: err.stderr ?? "" };
  }
}

/**
 * A folder that refuses writes: read-only by its mode for an ordinary user; for root (whom modes do not stop) a
 * read-only tmpfs mount, when the machine allows mounting. Undefined when neither can be had here.
 */
function readOnlyFolder(base: string): { dir: string; release(): void } | undefined {
  const dir = path.join(base, "read-only");
  fs.mkdirSync(dir);
  if (process.getuid?.() !== 0) {
    fs.chmodSync(dir, 0o500);
    return { dir, release: () => fs.chmodSync(dir, 0o700) };
  }
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir], { stdio: "ignore" });
    return { dir, release: () => execFileSync("umount", [dir], { stdio: "ignore" }) };
  } catch {
    return undefined;
  }
}

describe("a DATA_DIR that cannot be created", () => {
  let base: string;
  let readOnly: ReturnType<typeof readOnlyFolder>;
  beforeAll(async () => {
    await builtOnce();
    base = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-data-dir-"));
    readOnly = readOnlyFolder(base);
    fs.writeFileSync(path.join(base, "a-file"), "");
  });
  afterAll(() => {
    readOnly?.release();
    fs.rmSync(base, { recursive: true, force: true });
  });

  const expectOneLine = (r: { code: number; stderr: string }, line: RegExp) => {
    const lines = r.stderr.split("\n").filter((l) => l.trim() && !/^npm warn/.test(l));
    expect(r.code, r.stderr).not.toBe(0);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  };

  it("under a read-only folder: one line naming DATA_DIR and the cause, for serve and migrate", async (ctx) => {
    if (!readOnly) ctx.skip();
    const dir = path.join(readOnly!.dir, "data", "tessera");
    for (const cmd of ["serve", "migrate"]) {
      expectOneLine(
        await tessera([cmd], { DATA_DIR: dir }),
        new RegExp(
          `^Invalid setting DATA_DIR: cannot create the folder ${readOnly!.dir}/data \\((EROFS|EACCES)\\): make DATA_DIR a writable folder`,
        ),
      );
    }
  });

  it("through a file: one line naming the folder, for serve and migrate", async () => {
    for (const cmd of ["serve", "migrate"]) {
      expectOneLine(
        await tessera([cmd], { DATA_DIR: path.join(base, "a-file", "data") }),
        /^Invalid setting DATA_DIR: cannot create the folder .*a-file\/data \(ENOTDIR\): make DATA_DIR a writable folder \(part of the path is a file/,
      );
    }
  });

  it("a writable folder to create: created 0700 with the database 0600 (the honest look-alike)", async () => {
    const dir = path.join(base, "new", "nested", "data");
    const r = await tessera(["migrate"], { DATA_DIR: dir });
    expect(r, r.stderr).toEqual({ code: 0, stderr: "" });
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, "tessera.db")).mode & 0o777).toBe(0o600);
  });
});
