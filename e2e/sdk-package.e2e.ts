// The published shape of @tessera/sdk (docs/sdk.md): the tarball `npm pack` makes holds built JS and type declarations
// for every entry and no TypeScript source; installed into a fresh app outside the repository, every entry imports
// on plain Node (ESM) and type-checks with tsc under Node's own module resolution.
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appWithSdk, packedFiles, ROOT } from "./helpers/sdk-package.js";

const run = promisify(execFile);
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const ENTRIES = { "@tessera/sdk": ".", "@tessera/sdk/node": "./node", "@tessera/sdk/contract": "./contract" } as const;

const IMPORTS = `
const out = {};
for (const entry of ${JSON.stringify(Object.keys(ENTRIES))}) out[entry] = Object.keys(await import(entry)).sort();
console.log(JSON.stringify(out));
`;

// Types of every entry, used the way the README uses them; each @ts-expect-error fails the check if the types were `any`.
const TYPES = `
import Tessera, { ApiError as BrowserApiError, type EvaluateOptions } from "@tessera/sdk";
import { ApiError, Client, type Evaluation, userToken } from "@tessera/sdk/node";
import { ErrorBody, type Verdict } from "@tessera/sdk/contract";

const tessera = new Tessera({ clientId: "pk_test", heartbeat: { interval: 30_000 }, on_logout: () => undefined });
const options: EvaluateOptions = { user: "acct_42", email: "a@example.com" };
const client = new Client("sk_test", { baseUrl: "http://localhost:8080" });

export async function login(id: string): Promise<Verdict> {
  const evaluation: Evaluation = await client.getEvaluation(id);
  const token: string = await userToken("idsec", "acct_42");
  void [tessera.evaluate.login(options), token, ErrorBody.parse, ApiError, BrowserApiError];
  return evaluation.verdict;
}
// @ts-expect-error: not a verdict
export const wrong: Verdict = "maybe";
// @ts-expect-error: the client id is required
export const noId = new Tessera({});
`;

const TSCONFIG = {
  compilerOptions: {
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    lib: ["es2023", "dom"],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  },
  files: ["check.ts"],
};

let app: string;

beforeAll(async () => {
  app = await appWithSdk({ "imports.mjs": IMPORTS, "check.ts": TYPES, "tsconfig.json": JSON.stringify(TSCONFIG) });
}, 180_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe("the packed @tessera/sdk", () => {
  it("holds built JS and declarations for every entry, and no TypeScript source", async () => {
    const files = await packedFiles();
    expect(files.filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(ROOT, "sdk", "package.json"), "utf8")) as {
      exports: Record<string, { types: string; default: string }>;
    };
    for (const subpath of Object.values(ENTRIES)) {
      const entry = manifest.exports[subpath];
      expect(entry, subpath).toBeDefined();
      expect(files).toContain(entry!.default.replace(/^\.\//, ""));
      expect(files).toContain(entry!.types.replace(/^\.\//, ""));
    }
    expect(files).toContain("dist/tessera.js");
  });

  it("imports every entry on plain Node from a fresh app (ESM)", async () => {
    const { stdout } = await run(process.execPath, ["imports.mjs"], { cwd: app });
    const exported = JSON.parse(stdout) as Record<string, string[]>;
    expect(exported["@tessera/sdk"]).toEqual(expect.arrayContaining(["default", "Tessera", "ApiError", "NetworkError", "TimeoutError"]));
    expect(exported["@tessera/sdk/node"]).toEqual(expect.arrayContaining(["Client", "ApiError", "userToken", "TimeoutError"]));
    expect(exported["@tessera/sdk/contract"]).toEqual(
      expect.arrayContaining(["Evaluation", "ErrorBody", "ChallengeView", "PolicyCreateRequest"]),
    );
    // The installed copy, not the workspace's sources.
    const resolved = await run(process.execPath, ["--input-type=module", "-e", 'console.log(import.meta.resolve("@tessera/sdk/node"))'], {
      cwd: app,
    });
    expect(resolved.stdout.trim()).toBe(`file://${join(app, "node_modules", "@tessera", "sdk", "dist", "esm", "node.js")}`);
  });

  it("type-checks every entry with tsc under Node's module resolution", async () => {
    const result = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: app }).then(
      () => "",
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(result).toBe("");
  }, 120_000);
});
