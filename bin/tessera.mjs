#!/usr/bin/env node
// The `tessera` command (SPEC.md 15). It runs the server built to JavaScript (server/dist, `npm run build`). In
// production (NODE_ENV=production) nothing else runs: no compiler at run time; a missing or stale build is built first
// where the dev dependencies are installed, else the command stops with one line saying what to do. In development a
// missing or stale build is made first (about a second, once per change of the sources; its output goes to stderr), so
// `npm ci && npm start` works with no build step and each later command starts in well under a second, instead of
// compiling the TypeScript sources on every call. `serve` first makes sure the browser bundles it serves (the SDK, the
// challenge app, the console) are built from the current sources, always as production bundles (scripts/build.mjs).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BuildError, buildableWorkspaces, buildState, canBuild, ensureBuilt, isBundle, ROOT } from "../scripts/build.mjs";

const argv = process.argv.slice(2);
// The launcher reads NODE_ENV itself only to choose what to run; the server's settings are parsed by its config.
const production = process.env.NODE_ENV === "production";
const LOCK = path.join(ROOT, ".tmp", "build.lock");
const STALE_LOCK_MS = 5 * 60_000;

/**
 * Runs `build` while holding the build lock, so that commands started together (a test suite spawns several) build
 * once and never read a half-written dist/ folder: the others wait, then find the build current.
 */
async function withBuildLock(build) {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS)
        fs.rmSync(LOCK, { recursive: true, force: true }); // left by a killed build
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    build();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

const quietly = { log: (line) => console.error(line), quiet: true };

async function entry() {
  const server = buildableWorkspaces().find((w) => !isBundle(w));
  if (buildState(server) !== "current") {
    // Development builds where it can; production too, else ensureBuilt throws what to do.
    if (production || !canBuild()) ensureBuilt({ only: (w) => w.name === server.name, ...quietly });
    else await withBuildLock(() => ensureBuilt({ only: (w) => w.name === server.name, ...quietly }));
  }
  process.setSourceMapsEnabled(true); // stack traces name the TypeScript sources
  return import(pathToFileURL(path.join(server.dir, "dist", "cli.js")).href);
}

try {
  if (argv[0] === "serve") {
    if (canBuild()) await withBuildLock(() => ensureBuilt({ only: isBundle }));
    else ensureBuilt({ only: isBundle });
  }
  const { main } = await entry();
  const code = await main(argv);
  if (code >= 0) process.exit(code);
} catch (e) {
  if (e instanceof BuildError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
