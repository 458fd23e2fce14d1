// The repository explains itself (docs/README.md): code, tests, scripts and docs cite files a clone holds — a docs/
// page, a decision record, another source file — never a document kept outside the repository or a tracker number,
// which a maintainer could not open from a clone. The history of each change is in the commit log.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const FOLDERS = [
  "sdk/src",
  "server/src",
  "server/test",
  "server/scenarios",
  "console/src",
  "challenge-app/src",
  "e2e",
  "bench",
  "scripts",
  "bin",
  "docs",
  "examples",
];
const FILES = ["README.md", "vite.config.ts", "package.json"];
const TEXT = /\.(ts|tsx|mjs|js|md|json|css|html)$/;
const SKIP = new Set(["node_modules", "dist", "artifacts", "results"]);
const SELF = path.relative(ROOT, import.meta.filename);

/** A citation a clone cannot follow: the product brief's file, a folder beside the repository, a tracker number. */
const OUTSIDE = /\bSPEC(\.md)?\s*§?\s*\d|\bSPEC\.md\b|\.\.\/shared\/|\b[Ii]ssues?\s+#?\d+|\binterface specification\s+\d/;

function files(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : files(rel);
    return TEXT.test(e.name) ? [rel] : [];
  });
}

describe("citations", () => {
  it("name only files a clone holds: no product brief outside the repository, no tracker numbers", () => {
    const found: string[] = [];
    for (const file of [...FOLDERS.flatMap(files), ...FILES]) {
      if (file === SELF) continue;
      const lines = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (OUTSIDE.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found, "cite the docs/ page that states the rule instead").toEqual([]);
  });

  it("knows a citation from a page", () => {
    // Written in parts, so that this file holds no such citation itself.
    const [spec, shared, issue] = ["SPEC", "../sha" + "red/", "ssue"];
    for (const bad of [
      `// Challenges (${spec}.md 7): …`,
      `(see ${shared}${spec}.md)`,
      `// Test mode (i${issue} 19): …`,
      `I${issue} 20's figures`,
    ])
      expect(OUTSIDE.test(bad), bad).toBe(true);
    for (const good of ["// Challenges (docs/challenges.md): …", "an issue with the store", "specification of the wire"])
      expect(OUTSIDE.test(good), good).toBe(false);
  });
});
