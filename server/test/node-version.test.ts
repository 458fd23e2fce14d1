// `npm ci` on a Node older than 22 stops at once, saying how to get Node 22 (the committed .npmrc's engine-strict and
// the engines in package.json), instead of compiling dependencies for minutes first. Needs an older Node on the
// machine (Debian 12's is 20, at /usr/bin/node): skipped, saying so, where there is none.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./server-process.js";

const run = promisify(execFile);
/** A PATH where `node` and `npm` are the system's own, older ones. */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

function systemNodeMajor(): number | undefined {
  try {
    const v = execFileSync("node", ["--version"], { env: { PATH: SYSTEM_PATH }, encoding: "utf8" });
    return Number(v.trim().replace(/^v/, "").split(".")[0]);
  } catch {
    return undefined;
  }
}

const major = systemNodeMajor();
const older = major !== undefined && major < 22;
if (!older) console.warn(`node-version.test.ts: no Node older than 22 at ${SYSTEM_PATH} (found ${major ?? "none"}): skipped`);

describe.skipIf(!older)("npm ci on an older Node", () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-old-node-"));
  afterAll(() => {
    fs.rmSync(copy, { recursive: true, force: true });
  });

  it("stops at once with EBADENGINE, the engines saying how to get Node 22", async () => {
    // The files npm reads before installing anything: the manifests, the lockfile and the project's .npmrc.
    for (const file of [
      ".npmrc",
      "package.json",
      "package-lock.json",
      ...["sdk", "challenge-app", "console", "server", "e2e"].map((w) => `${w}/package.json`),
    ]) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
    }
    const result = await run("npm", ["ci", "--no-audit", "--no-fund", "--offline"], {
      cwd: copy,
      env: { PATH: SYSTEM_PATH, HOME: process.env.HOME ?? copy },
    }).then(
      () => ({ failed: false, stderr: "" }),
      (e: { stderr: string }) => ({ failed: true, stderr: e.stderr }),
    );
    expect(result.failed).toBe(true);
    expect(result.stderr).toContain("EBADENGINE");
    expect(result.stderr).toMatch(/Required: \{"node":">=22","node-22-from-npm":"source <\(scripts\/node22\.sh\), then npm ci again"\}/);
    // Nothing was installed: npm stopped before any dependency (and its install script).
    expect(fs.existsSync(path.join(copy, "node_modules"))).toBe(false);
  });
});
