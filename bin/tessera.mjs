#!/usr/bin/env node
// The `tessera` CLI entry: runs the TypeScript sources through tsx (no build step needed after `npm ci`).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../server/src/cli.ts");
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
