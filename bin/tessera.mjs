#!/usr/bin/env node
// The `tessera` command (docs/operations.md). It runs the server built to JavaScript (server/dist, `npm run build`). In
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
// `--help`, `--version` and a bare `tessera` only print (help does nothing else; docs/operations.md), so they build nothing: a
// build of stale bundles before `serve --help` took 10 s and more on a busy machine. They print from the server's
// build as it is, and build it only when there is none at all (the help lives in it).
const onlyPrints =
  argv.length === 0 || argv.includes("--help") || argv.includes("-h") || ["--version", "-v", "version", "help"].includes(argv[0]);

// The open transaction travels in the async context (server/src/store/transactions.ts). Node 22 carries that context
// through promise hooks, which tax every promise the server makes; AsyncContextFrame, Node 24's default, does not
// (bench on a quiet machine: client evaluate 0.95 -> 0.83-0.90 ms of CPU, GET evaluation 0.16-0.17 -> 0.13-0.14 ms,
// consume 0.15 -> 0.14 ms). So on Node 22 and 23 `serve` executes itself again with the flag that turns it on: the
// same process (its id, its open files and pipes), only the flag added. Node 24 refuses the flag: it is the default.
const ASYNC_CONTEXT_FRAME = "--experimental-async-context-frame";
if (
  argv[0] === "serve" &&
  !onlyPrints &&
  Number(process.versions.node.split(".")[0]) < 24 &&
  !process.execArgv.includes(ASYNC_CONTEXT_FRAME) &&
  typeof process.execve === "function"
) {
  try {
    process.execve(process.execPath, [process.execPath, ASYNC_CONTEXT_FRAME, ...process.execArgv, ...process.argv.slice(1)], process.env);
  } catch {
    // Not possible here (a platform without execve): the server runs as it is, only slower.
  }
}
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
  const state = buildState(server);
  if (state === "missing" || (state === "stale" && !onlyPrints)) {
    // Development builds where it can; production too, else ensureBuilt throws what to do.
    if (production || !canBuild()) ensureBuilt({ only: (w) => w.name === server.name, ...quietly });
    else await withBuildLock(() => ensureBuilt({ only: (w) => w.name === server.name, ...quietly }));
  }
  process.setSourceMapsEnabled(true); // stack traces name the TypeScript sources
  return import(pathToFileURL(path.join(server.dir, "dist", "cli.js")).href);
}

try {
  if (argv[0] === "serve" && !onlyPrints) {
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
