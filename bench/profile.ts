// Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per package, heaviest first.
// Run alone: npx tsx bench/profile.ts <file.cpuprofile> [top=30]
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface ProfileSummary {
  samples: number;
  top: Array<{ self_percent: number; function: string; where: string }>;
  by_package: Array<{ self_percent: number; package: string }>;
}

/** Where a script comes from: its npm package, our own source folder, or Node itself. */
function owner(url: string): string {
  if (!url) return "(native/idle/gc)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith("node:")) return "node";
  const src = url.indexOf("/src/");
  return src >= 0
    ? `ours: ${url
        .slice(src + 1)
        .split("/")
        .slice(0, 2)
        .join("/")}`
    : path.basename(url);
}

export function summariseProfile(file: string, n = 30): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const counts = new Map<number, number>();
  for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, c] of counts) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"}\t${url ? `${url.replace(/^file:\/\//, "").replace(/.*\/(node_modules|server|sdk)\//, "$1/")}:${lineNumber + 1}` : ""}`;
    fn.set(key, (fn.get(key) ?? 0) + c);
    const o = owner(url);
    pkg.set(o, (pkg.get(o) ?? 0) + c);
  }
  const total = p.samples.length;
  const pct = (c: number) => +((c / total) * 100).toFixed(2);
  return {
    samples: total,
    top: [...fn.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, c]) => {
        const [f, where] = k.split("\t");
        return { self_percent: pct(c), function: f!, where: where ?? "" };
      }),
    by_package: [...pkg.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([k, c]) => ({ self_percent: pct(c), package: k })),
  };
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: tsx bench/profile.ts <file.cpuprofile> [top]");
    process.exit(2);
  }
  const s = summariseProfile(file, Number(process.argv[3] ?? 30));
  console.log(`${s.samples} samples\n\nBy package:`);
  for (const x of s.by_package) console.log(`${x.self_percent.toFixed(1).padStart(6)} %  ${x.package}`);
  console.log("\nBy function (self):");
  for (const x of s.top) console.log(`${x.self_percent.toFixed(1).padStart(6)} %  ${x.function}  ${x.where}`);
}
