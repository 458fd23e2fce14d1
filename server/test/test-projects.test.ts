// The vitest projects (vite.config.ts): a test file that starts child processes (the real server, the CLI, a build)
// runs in the "process" project, every other one in "unit". This test keeps PROCESS_TESTS true as files change: it
// reads each test file's imports, so a new spawning test cannot slip into the unit project unseen.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MOCKING_TESTS, PROCESS_TESTS } from "../../vite.config.js";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const FOLDERS = ["sdk/src", "server/src", "server/test", "challenge-app/src", "console/src"];

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === "node_modules" ? [] : testFiles(rel);
    return /\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** Starts a process: node's child_process, or the helpers of server-process.ts that start the server, the CLI or a build. */
function startsProcesses(source: string): boolean {
  if (/^import [^;]* from "node:child_process";/m.test(source)) return true;
  const helpers = /^import \{([^}]*)\} from "\.\/server-process\.js";/m.exec(source)?.[1] ?? "";
  return /\b(startServer|runCli|createProjectCli|assetsBuiltOnce)\b/.test(helpers);
}

describe("vitest projects", () => {
  it("the process project holds exactly the test files that start processes", () => {
    const files = FOLDERS.flatMap(testFiles).sort();
    const spawning = files.filter((f) => startsProcesses(fs.readFileSync(path.join(ROOT, f), "utf8")));
    expect(spawning).toEqual([...PROCESS_TESTS].sort());
  });

  it("the mocking project holds exactly the in-process test files that replace a module (vi.mock)", () => {
    const files = FOLDERS.flatMap(testFiles).sort();
    const mocking = files.filter(
      (f) => !PROCESS_TESTS.includes(f) && /\bvi\.(do)?[mM]ock\(/.test(fs.readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(mocking).toEqual([...MOCKING_TESTS].sort());
  });

  it("knows a spawning file from an in-process one", () => {
    expect(startsProcesses('import { spawn } from "node:child_process";')).toBe(true);
    expect(startsProcesses('import { freePort, startServer } from "./server-process.js";')).toBe(true);
    expect(startsProcesses('import {\n  assetsBuiltOnce,\n  ROOT,\n} from "./server-process.js";')).toBe(true);
    // A free port or the repository root starts nothing.
    expect(startsProcesses('import { freePort, ROOT } from "./server-process.js";')).toBe(false);
  });
});
