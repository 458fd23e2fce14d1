#!/usr/bin/env node
// `npm ci` / `npm install` (preinstall): Tessera runs on Node.js 22 or later (package.json engines; several
// dependencies declare the same). An older Node still installs and runs for development, with npm's EBADENGINE
// warnings; this says in one place what to do about them. Never fails the install.
const MAJOR = 22;
const major = Number(process.versions.node.split(".")[0]);
if (major < MAJOR) {
  console.warn(
    `\nTessera needs Node.js ${MAJOR} or later; this is ${process.version}. The install goes on, but use Node ${MAJOR}+: ` +
      `install it, or take it from the npm registry with  eval "$(scripts/node22.sh)"  and run npm ci again.\n`,
  );
}
