#!/usr/bin/env node
// `npm ci` / `npm install` (preinstall): Tessera runs on Node.js 22 or later (package.json engines; several
// dependencies declare the same). The committed .npmrc (engine-strict) makes npm refuse an older Node at once, printing
// the engines, which say how to get Node 22; npm runs the dependencies' install scripts before this one, so this is
// only the word for an install that overrode engine-strict (`--engine-strict=false`, `--force`). Never fails it.
const MAJOR = 22;
const major = Number(process.versions.node.split(".")[0]);
if (major < MAJOR) {
  console.warn(
    `\nTessera needs Node.js ${MAJOR} or later; this is ${process.version}. The install goes on, but use Node ${MAJOR}+: ` +
      `install it, or take it from the npm registry with  eval "$(scripts/node22.sh)"  and run npm ci again.\n`,
  );
}
