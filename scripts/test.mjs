#!/usr/bin/env node
// `npm test`: lint, type check, the vitest projects of vite.config.ts one after the other ("unit": in-process unit and
// integration tests on both stores; "process": tests that start the server or the CLI as child processes), then the
// browser end-to-end suite. Prints one closing line "tests: N passed, N failed, N skipped" summing every suite.
//
//   npm test                          everything, as CI runs it
//   npm test -- <files, vitest flags> only vitest on those (no lint, type check, build or e2e): the loop on one file;
//                                     an e2e/*.e2e.ts file runs in the end-to-end suite, after the build
//   npm run test:unit [-- <args>]     both projects (with arguments: vitest on those)
//   npm run test:e2e [-- <args>]      the build, then the end-to-end suite (with arguments: on those)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, ".tmp");
fs.mkdirSync(out, { recursive: true });
const argv = process.argv.slice(2);
const mode = argv[0] === "unit" || argv[0] === "e2e" ? argv[0] : "all";
/** What the caller passed for vitest (files, -t name, …): only those run. */
const args = mode === "all" ? argv : argv.slice(1);
const isE2e = (a) => /^e2e\/|\.e2e\.ts$/.test(a);
const npx = "npx";

const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];

function step(name, cmd, stepArgs, env = {}) {
  const t0 = Date.now();
  console.log(`\n=== ${name}: ${cmd} ${stepArgs.join(" ")}`);
  const r = spawnSync(cmd, stepArgs, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const ok = r.status === 0;
  console.log(`=== ${name}: ${ok ? "ok" : `FAILED (exit ${r.status ?? r.signal})`} in ${secs}s`);
  if (!ok) failedSteps.push(name);
  return ok;
}

function countVitest(file) {
  if (!fs.existsSync(file)) return;
  const j = JSON.parse(fs.readFileSync(file, "utf8"));
  totals.passed += j.numPassedTests ?? 0;
  totals.failed += j.numFailedTests ?? 0;
  totals.skipped += (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
}

/** `vitest run` with these arguments, its counts added to the total. */
function vitest(name, report, vitestArgs) {
  const file = path.join(out, `${report}.json`);
  fs.rmSync(file, { force: true });
  step(name, npx, ["vitest", "run", ...vitestArgs, "--reporter=default", "--reporter=json", `--outputFile=${file}`]);
  countVitest(file);
}

function e2e(e2eArgs) {
  if (step("build", "npm", ["run", "build"])) vitest("end to end", "e2e", ["--config", "e2e/vitest.config.ts", ...e2eArgs]);
}

if (args.length) {
  // The caller chose what to run.
  if (mode === "e2e" || (mode === "all" && args.some(isE2e))) e2e(args);
  else vitest("vitest", "unit", args);
} else {
  if (mode === "all") {
    step("lint", npx, ["biome", "check", "."]);
    step("typecheck", npx, ["tsc", "-b"]);
  }
  if (mode !== "e2e") {
    vitest("unit and integration", "unit", ["--project", "unit", "--project", "mocking"]);
    vitest("child processes", "process", ["--project", "process"]);
  }
  if (mode !== "unit") e2e([]);
}

if (failedSteps.length) console.log(`\nFailed steps: ${failedSteps.join(", ")}`);
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length ? 1 : 0);
