#!/usr/bin/env node
// The `tessera` command (SPEC.md 15). It runs the server built to JavaScript (server/dist, `npm run build`) when that
// build is current. In production (NODE_ENV=production) nothing else runs: no tsx, no compiler at run time; a missing
// or stale build is built first where the dev dependencies are installed, else the command stops with one line saying
// what to do. In development it otherwise runs the TypeScript sources through tsx, so `npm ci && npm start` works with
// no build step. `serve` first makes sure the browser bundles it serves (the SDK, the challenge app, the console) are
// built from the current sources, always as production bundles (scripts/build.mjs).
import { register as registerHooks } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BuildError, buildableWorkspaces, buildState, canBuild, ensureBuilt, isBundle, ROOT } from "../scripts/build.mjs";

const argv = process.argv.slice(2);
// The launcher reads NODE_ENV itself only to choose what to run; the server's settings are parsed by its config.
const production = process.env.NODE_ENV === "production";

async function entry() {
  const server = buildableWorkspaces().find((w) => !isBundle(w));
  const built = path.join(server.dir, "dist", "cli.js");
  if (buildState(server) === "current") return import(pathToFileURL(built).href);
  if (production) {
    ensureBuilt({ only: (w) => w.name === server.name });
    return import(pathToFileURL(built).href);
  }
  if (!canBuild()) ensureBuilt({ only: (w) => w.name === server.name }); // throws: says what to do
  // From the sources, @tessera/sdk resolves to its TypeScript sources too (the "@tessera/source" export condition), like
  // `tsc` and Vite do here; an installed package resolves to its built JS.
  registerHooks("./source-condition.mjs", import.meta.url);
  const { register } = await import("tsx/esm/api");
  register();
  return import(pathToFileURL(path.join(ROOT, "server", "src", "cli.ts")).href);
}

try {
  if (argv[0] === "serve") ensureBuilt({ only: isBundle });
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
