#!/usr/bin/env node
// The production build (docs/operations.md): every workspace with a `build` script — the browser SDK, the challenge app, the
// console, the server — is built to its dist/ unless that build is current. Each build leaves dist/.build-stamp.json
// with a hash of its inputs (its own files, the @tessera workspaces it imports, the lockfile), so a changed source is
// rebuilt and never served stale, and an unchanged one is not rebuilt. The stamp also keeps a short hash per input
// file, so that a stale build names the files that changed since it was made. Builds are always production builds
// (NODE_ENV=production, whatever the caller's).
//
// Plain JavaScript with no dependency: bin/tessera.mjs runs it before starting the server, also after
// `npm ci --omit=dev`, where it can only check (building needs Vite, a dev dependency).
//
//   node scripts/build.mjs            build what is missing or stale
//   node scripts/build.mjs --force    rebuild everything
//   node scripts/build.mjs --check    list what is missing or stale; exit 1 if anything is
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "..");
const STAMP = ".build-stamp.json";
/** Folders that are no input of a build: outputs, installs, tests and data read at run time. */
const NOT_INPUTS = new Set(["node_modules", "dist", "test", "scenarios", "data", "artifacts", ".tmp"]);
/**
 * Files that are no input either: tests, and package tarballs (`npm pack` in a workspace leaves one there; it is an
 * output of the build, and counting it made every bundle stale, so that a production start refused to run).
 */
const NOT_INPUT_FILE = /\.test\.[cm]?[jt]sx?$|\.tgz$/;

/** A build that cannot be made or is not there: its message says what to do, in one line. */
export class BuildError extends Error {}

/** The workspaces that have a build script, with the @tessera workspaces each depends on. */
export function buildableWorkspaces() {
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const all = root.workspaces.map((w) => {
    const dir = path.join(ROOT, w);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) => d.startsWith("@tessera/"));
    return { name: pkg.name, folder: w, dir, deps, buildable: Boolean(pkg.scripts?.build) };
  });
  const byName = new Map(all.map((w) => [w.name, w]));
  return all.filter((w) => w.buildable).map((w) => ({ ...w, deps: w.deps.map((d) => byName.get(d)).filter(Boolean) }));
}

/** Each input file of `dir` (relative to the repository) with the hash of its content, in a stable order. */
function inputFiles(files, hash, dir, rel = "") {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".") || NOT_INPUTS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) inputFiles(files, hash, full, `${rel}${entry.name}/`);
    else if (entry.isFile() && !NOT_INPUT_FILE.test(entry.name)) {
      const content = fs.readFileSync(full);
      files[path.relative(ROOT, full).split(path.sep).join("/")] = createHash("sha256").update(content).digest("hex").slice(0, 16);
      hash.update(`${rel}${entry.name}\0`);
      hash.update(content);
    }
  }
}

/**
 * What a workspace's build reads — its files, those of the workspaces it imports, the lockfile and shared build files —
 * as one hash (`inputs`) and a short hash per file (`files`, to say which changed).
 */
export function buildInputs(ws) {
  const hash = createHash("sha256");
  const files = {};
  for (const dir of [ws.dir, ...ws.deps.map((d) => d.dir)]) {
    hash.update(`${path.relative(ROOT, dir)}\n`);
    inputFiles(files, hash, dir);
  }
  // Shared build files outside the workspaces: the compiler options every workspace's tsconfig.json extends, the Vite
  // plugins that the challenge app and the console import.
  for (const file of ["package-lock.json", "tsconfig.base.json", "scripts/vite-pure-contract.ts", "scripts/vite-precompress.ts"]) {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full)) continue;
    const content = fs.readFileSync(full);
    files[file] = createHash("sha256").update(content).digest("hex").slice(0, 16);
    hash.update(content);
  }
  return { inputs: hash.digest("hex"), files };
}

export const inputsHash = (ws) => buildInputs(ws).inputs;

function readStamp(ws) {
  try {
    return JSON.parse(fs.readFileSync(path.join(ws.dir, "dist", STAMP), "utf8"));
  } catch {
    return undefined;
  }
}

/** "current", "stale" (built from other sources) or "missing". */
export function buildState(ws) {
  const stamp = readStamp(ws);
  if (!stamp) return "missing";
  return stamp.inputs === inputsHash(ws) ? "current" : "stale";
}

/** How many changed files a message names before "and N more". */
const NAMED_CHANGES = 3;

/**
 * Why a workspace is not current, for a person: "missing", or "stale: sdk/src/x.ts changed, sdk/y.txt is new since
 * the build" (from the stamp's per-file hashes; a stamp made before they were kept says only "stale").
 */
export function describeState(ws) {
  const stamp = readStamp(ws);
  if (!stamp) return "missing";
  const now = buildInputs(ws);
  if (stamp.inputs === now.inputs) return "current";
  if (!stamp.files) return "stale: built from other sources";
  const changes = [];
  for (const [file, h] of Object.entries(now.files)) {
    if (!(file in stamp.files)) changes.push(`${file} is new`);
    else if (stamp.files[file] !== h) changes.push(`${file} changed`);
  }
  for (const file of Object.keys(stamp.files)) if (!(file in now.files)) changes.push(`${file} was removed`);
  if (changes.length === 0) return "stale: built from other sources";
  const named = changes.slice(0, NAMED_CHANGES).join(", ");
  const more = changes.length > NAMED_CHANGES ? ` and ${changes.length - NAMED_CHANGES} more` : "";
  return `stale: ${named}${more} since the build`;
}

/** Whether this install can build (Vite is a dev dependency: absent after npm ci --omit=dev). */
export function canBuild() {
  try {
    createRequire(path.join(ROOT, "package.json")).resolve("vite");
    return true;
  } catch {
    return false;
  }
}

/** `log` gets our own lines; with `quiet`, the build tool's output goes to stderr (a command's stdout stays its own). */
export function buildWorkspace(ws, log = console.log, { quiet = false } = {}) {
  const t0 = Date.now();
  const { inputs, files } = buildInputs(ws);
  log(`Building ${ws.folder}…`);
  // Production bundles, whatever NODE_ENV the caller runs with (a development bundle of the app is 20 % larger).
  const r = spawnSync("npm", ["run", "build", "-w", ws.folder], {
    cwd: ROOT,
    stdio: ["ignore", quiet ? 2 : "inherit", "inherit"],
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (r.status !== 0) throw new BuildError(`Building ${ws.folder} failed (exit ${r.status ?? r.signal}): see the output above`);
  fs.writeFileSync(path.join(ws.dir, "dist", STAMP), `${JSON.stringify({ inputs, built_at: new Date().toISOString(), files })}\n`);
  log(`Built ${ws.folder} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * Makes sure the given workspaces (all buildable ones by default) are built from the current sources: builds what is
 * missing or stale, or, where nothing can be built (a production install), throws a BuildError saying what to do.
 */
export function ensureBuilt({ only, force = false, log = console.log, quiet = false } = {}) {
  const targets = buildableWorkspaces().filter((w) => !only || only(w));
  const todo = targets.filter((w) => force || buildState(w) !== "current");
  if (todo.length === 0) return [];
  if (!canBuild()) {
    const list = todo.map((w) => `${w.folder} (${describeState(w)})`).join("; ");
    throw new BuildError(
      `Not built from these sources: ${list}. This install has no build tools (npm ci --omit=dev): run \`npm ci && npm run build\` (where dev dependencies may be installed) and ship the dist/ folders with it`,
    );
  }
  for (const w of todo) buildWorkspace(w, log, { quiet });
  return todo.map((w) => w.folder);
}

/** The browser bundles the server serves: every buildable workspace but the server itself. */
export const isBundle = (w) => w.name !== "@tessera/server";

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = new Set(process.argv.slice(2));
  try {
    if (args.has("--check")) {
      const stale = buildableWorkspaces()
        .map((w) => [w.folder, describeState(w)])
        .filter(([, s]) => s !== "current");
      for (const [folder, state] of stale) console.log(`${folder}: ${state}`);
      process.exit(stale.length ? 1 : 0);
    }
    const built = ensureBuilt({ force: args.has("--force") });
    if (built.length === 0) console.log("Everything is built from the current sources");
  } catch (e) {
    if (e instanceof BuildError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
}
