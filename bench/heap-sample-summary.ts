// Summarises a sampling heap profile written by bench/heap-sample.cjs: the bytes sampled per request, by allocation
// site (the allocating function) and by the nearest frames of the server's own code (server/dist or server/src), the
// heaviest first. npx tsx bench/heap-sample-summary.ts <profile.json> [requests] [rows=25]
import fs from "node:fs";

type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type Node = { id: number; callFrame: Frame; selfSize: number; children: Node[] };

export function summariseHeapSample(file: string, requests: number, rows = 25): string {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as { head: Node; samples: Array<{ size: number; nodeId: number }> };
  const parents = new Map<number, Node[]>();
  const walk = (n: Node, stack: Node[]) => {
    const s = [...stack, n];
    parents.set(n.id, s);
    for (const c of n.children) walk(c, s);
  };
  walk(profile.head, []);
  const name = (f: Frame) =>
    `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(server|node_modules)\//, "$1/")}:${f.lineNumber + 1}`;
  const own = (f: Frame) => /\/server\/(dist|src)\//.test(f.url);
  const bySite = new Map<string, number>();
  const byOwn = new Map<string, number>();
  let total = 0;
  for (const s of profile.samples) {
    const stack = parents.get(s.nodeId) ?? [];
    total += s.size;
    const leaf = stack[stack.length - 1];
    const site = leaf ? name(leaf.callFrame) : "?";
    bySite.set(site, (bySite.get(site) ?? 0) + s.size);
    const mine = stack.filter((n) => own(n.callFrame)).slice(-3);
    const key = mine.length
      ? mine
          .map((n) => name(n.callFrame))
          .reverse()
          .join(" < ")
      : `(not the server's) ${site}`;
    byOwn.set(key, (byOwn.get(key) ?? 0) + s.size);
  }
  const per = (b: number) => `${(b / requests / 1024).toFixed(2)} KiB`;
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([k, b]) => `  ${per(b).padStart(10)} ${((b / total) * 100).toFixed(0).padStart(3)}%  ${k}`)
      .join("\n");
  return `sampled as surviving the young generation: ${per(total)} per request (${requests} requests)\nby allocation site:\n${top(bySite)}\nby the server's nearest frames:\n${top(byOwn)}`;
}

if (process.argv[1]?.endsWith("heap-sample-summary.ts")) {
  const [file, requests, rows] = process.argv.slice(2);
  console.log(summariseHeapSample(file!, Number(requests ?? 1), Number(rows ?? 25)));
}
