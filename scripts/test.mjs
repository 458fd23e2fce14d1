#!/usr/bin/env node
// `npm test`: lint, type check, unit + integration tests (both stores), then the browser end-to-end suite.
// Prints one closing line "tests: N passed, N failed, N skipped" summing every suite.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, ".tmp");
fs.mkdirSync(out, { recursive: true });
const only = process.argv[2]; // optional: "unit" or "e2e"

const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];

function step(name, cmd, args, env = {}) {
  const t0 = Date.now();
  console.log(`\n=== ${name}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
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

const npx = "npx";
if (!only) {
  step("lint", npx, ["biome", "check", "."]);
  step("typecheck", npx, ["tsc", "-b"]);
}
if (!only || only === "unit") {
  const file = path.join(out, "unit.json");
  fs.rmSync(file, { force: true });
  step("unit and integration", npx, ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${file}`]);
  countVitest(file);
}
if (!only || only === "e2e") {
  if (step("build", "npm", ["run", "build"])) {
    const file = path.join(out, "e2e.json");
    fs.rmSync(file, { force: true });
    step("end to end", npx, [
      "vitest",
      "run",
      "--config",
      "e2e/vitest.config.ts",
      "--reporter=default",
      "--reporter=json",
      `--outputFile=${file}`,
    ]);
    countVitest(file);
  }
}

if (failedSteps.length) console.log(`\nFailed steps: ${failedSteps.join(", ")}`);
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length ? 1 : 0);
