// The SDK as a customer gets it: `npm pack` of sdk/ (built by `npm run build`), installed from the tarball into a
// fresh app in a temporary folder outside this repository, so nothing resolves through the workspace link.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const ROOT = new URL("../../", import.meta.url).pathname;
const SDK = join(ROOT, "sdk");

/** Packs sdk/ as it is built now; answers the tarball's path. */
export async function packSdk(into: string): Promise<string> {
  if (!existsSync(join(SDK, "dist", "esm", "node.js"))) throw new Error("sdk/dist is missing: run `npm run build` first");
  // --ignore-scripts: the build is the one `npm test` just made; packing must not rebuild it under the test.
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", into], { cwd: SDK });
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (!info) throw new Error(`npm pack answered nothing: ${stdout}`);
  return join(into, info.filename);
}

/** The files a packed tarball holds (npm pack --dry-run). */
export async function packedFiles(): Promise<string[]> {
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--dry-run", "--json"], { cwd: SDK });
  const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return (info?.files ?? []).map((f) => f.path);
}

/** Installs the SDK as packed now into an app folder (its package.json says what else it needs). */
export async function installPackedSdk(dir: string): Promise<void> {
  const tarball = await packSdk(dir);
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--no-package-lock", tarball], { cwd: dir });
}

/**
 * A fresh app folder with the packed SDK installed (its dependencies come from the npm registry or npm's cache) and
 * `files` written into it. Answers the folder.
 */
export async function appWithSdk(files: Record<string, string> = {}, pkg: Record<string, unknown> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-sdk-app-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "customer-app", private: true, type: "module", ...pkg }, null, 2));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  await installPackedSdk(dir);
  return dir;
}
