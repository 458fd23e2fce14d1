// `npm start` right after `npm ci` must work: build the SDK bundle and the challenge app if they are missing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

const ASSETS = [
  { workspace: "sdk", file: path.join(ROOT, "sdk", "dist", "tessera.js") },
  { workspace: "challenge-app", file: path.join(ROOT, "challenge-app", "dist", "index.html") },
];

export function ensureAssetsBuilt(log: (msg: string) => void = console.log): void {
  for (const a of ASSETS) {
    if (fs.existsSync(a.file)) continue;
    log(`Building ${a.workspace} (first start; ${path.relative(ROOT, a.file)} is missing)…`);
    const t0 = Date.now();
    const r = spawnSync("npm", ["run", "build", "-w", a.workspace], { cwd: ROOT, stdio: "inherit" });
    if (r.status !== 0) throw new Error(`Building ${a.workspace} failed (exit ${r.status}); run \`npm run build\` to see why`);
    log(`Built ${a.workspace} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}
