#!/usr/bin/env node
// CI's proof of the production install (docs/operations.md): a fresh copy of the repository with its builds (the dist/ folders
// `npm run build` made, as a release ships them) and no node_modules; `npm ci --omit=dev` there; then
// `NODE_ENV=production npm start` must serve the SDK, the challenge app, the console and a working evaluation, with no build tool
// installed (no TypeScript compiler, tsx or Vite). Run after `npm run build`; prints what it checked, exits 1 on failure.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { buildableWorkspaces, buildState, ROOT } from "./build.mjs";

const step = (msg) => console.log(`--- ${msg}`);
function fail(msg) {
  console.error(`production check FAILED: ${msg}`);
  process.exit(1);
}

for (const w of buildableWorkspaces())
  if (buildState(w) !== "current") fail(`${w.folder} is not built from the current sources: run npm run build`);

const copy = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-release-"));
const data = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-release-data-"));
let server;
try {
  step(`fresh copy in ${copy}: tracked files and the dist/ folders`);
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(ROOT, f))) continue; // deleted in the work tree, not committed yet
    fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
  }
  for (const w of buildableWorkspaces()) fs.cpSync(path.join(w.dir, "dist"), path.join(copy, w.folder, "dist"), { recursive: true });

  step("npm ci --omit=dev");
  const ci = spawnSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], { cwd: copy, encoding: "utf8" });
  process.stdout.write(ci.stdout);
  process.stderr.write(ci.stderr);
  if (ci.status !== 0) fail(`npm ci --omit=dev exited ${ci.status}`);
  if (/EBADENGINE/.test(ci.stdout + ci.stderr)) fail(`npm ci warned EBADENGINE on Node ${process.version}`);
  for (const tool of ["typescript", "tsx", "vite"]) {
    if (fs.existsSync(path.join(copy, "node_modules", tool))) fail(`${tool} is installed by npm ci --omit=dev`);
  }

  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", DATA_DIR: data, LOG_LEVEL: "warn" };
  step("tessera projects create (production, from server/dist)");
  const created = JSON.parse(
    execFileSync(process.execPath, ["bin/tessera.mjs", "projects", "create", "--name", "Release check", "--json"], {
      cwd: copy,
      env,
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .pop(),
  );
  const prod = created.environments.production;

  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  step(`NODE_ENV=production npm start on ${base}`);
  let output = "";
  server = spawn("npm", ["start"], { cwd: copy, env: { ...env, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base }, detached: true });
  server.stdout.on("data", (d) => (output += d));
  server.stderr.on("data", (d) => (output += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) fail(`the server exited (${server.exitCode}):\n${output}`);
    if (Date.now() > deadline) fail(`the server was not ready within 60 s:\n${output}`);
    const r = await fetch(`${base}/readyz`).catch(() => undefined);
    if (r?.status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }

  for (const asset of ["/sdk/v3/tessera.js", "/sdk/v3/rupt.js", "/challenge/", "/console/"]) {
    const r = await fetch(`${base}${asset}`);
    if (r.status !== 200) fail(`GET ${asset} answered ${r.status}`);
  }
  const evaluated = await fetch(`${base}/v3/client/evaluate/login`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    },
    body: JSON.stringify({
      client_id: prod.client_id,
      user: "release-check",
      signals: {
        components: { platform: { value: "Linux x86_64" }, timezone: { value: "Europe/Paris" } },
        visitor_token: "vt-release-check-0001",
      },
    }),
  });
  if (evaluated.status !== 200) fail(`POST /v3/client/evaluate/login answered ${evaluated.status}: ${await evaluated.text()}`);
  const { evaluation_id } = await evaluated.json();
  const read = await fetch(`${base}/v3/evaluations/${evaluation_id}`, { headers: { authorization: `Bearer ${prod.secret}` } });
  const evaluation = await read.json();
  if (read.status !== 200 || !evaluation.verdict)
    fail(`GET /v3/evaluations/${evaluation_id} answered ${read.status}: ${JSON.stringify(evaluation)}`);
  console.log(`production check: ok (evaluation ${evaluation_id}: ${evaluation.verdict}; Node ${process.version})`);
} finally {
  // The server and npm run in their own process group: end that group, which this script started.
  if (server?.pid && server.exitCode === null) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
  }
  fs.rmSync(copy, { recursive: true, force: true });
  fs.rmSync(data, { recursive: true, force: true });
}
