// What stalls the event loop, from a CPU profile of the server (node --cpu-prof) and its GC entries (bench/eld.cjs
// prints one `[gc]` line per collection with STALLS=1): every busy period of the main thread longer than a threshold,
// split into what ran meanwhile (garbage collection by kind, SQLite statements, the group commit, jobs, the request
// path's JavaScript) and the time the thread held no CPU at all (a gap between two samples: another process ran). A
// busy period is the samples between two idle ones. Profile samples count work, not the machine's load: on a shared
// machine a stall's CPU samples attribute it where its wall time cannot.
// npx tsx bench/stalls.ts <file.cpuprofile> [thresholdMs=20] [fromUs toUs]  (monotonic µs, as the profile's own clock)
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

/** A garbage collection as bench/eld.cjs prints it: start on the monotonic clock (µs), duration (µs), kind. */
export interface GcEntry {
  startUs: number;
  durationUs: number;
  kind: string;
}

export interface Stall {
  /** Start (µs, monotonic), wall time and the time the thread ran (ms): a busy period. */
  startUs: number;
  wallMs: number;
  cpuMs: number;
  /** ms by cause: the samples of each category, and `no CPU` (gaps between samples beyond the interval). */
  byCause: Record<string, number>;
  /** The cause that took the most of it. */
  cause: string;
}

/** What a sample's stack was doing, from its leaf up: the first frame that names a known cause wins. */
function classify(stack: ProfileNode[]): string {
  const leaf = stack[0]!.callFrame;
  if (leaf.functionName === "(garbage collector)") return "gc";
  if (leaf.functionName === "(program)") return "native (program)";
  for (const n of stack) {
    const { url, functionName } = n.callFrame;
    if (/store\/db\.[tj]s/.test(url) && /^(flush|restartWal|walProgress)$/.test(functionName)) return "group commit";
    if (/\/jobs\//.test(url) || /store\/retention\.[tj]s/.test(url)) return "jobs";
    if (/node_modules\/pino/.test(url)) return "logging";
  }
  // A native call of better-sqlite3 (a statement's run/get/all/iterate, exec): SQLite's own time.
  if (!leaf.url && /^(run|get|all|iterate|exec|prepare|pragma)$/.test(leaf.functionName)) return "sqlite statement";
  return "javascript";
}

export function stallsOf(
  file: string,
  opts: { thresholdMs?: number; fromUs?: number; toUs?: number; gc?: GcEntry[]; intervalUs?: number } = {},
): { stalls: Stall[]; seconds: number; busyMs: number; segments: Segment[] } {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const category = new Map<number, string>();
  const catOf = (id: number): string => {
    let c = category.get(id);
    if (c) return c;
    const stack: ProfileNode[] = [];
    for (let n = byId.get(id); n; n = parent.get(n.id)) stack.push(n);
    c = classify(stack);
    category.set(id, c);
    return c;
  };
  const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === "(idle)";
  // The sampling interval: the median gap (--cpu-prof-interval, 1 ms by default here).
  const deltas = [...p.timeDeltas].sort((a, b) => a - b);
  const interval = opts.intervalUs ?? deltas[Math.floor(deltas.length / 2)] ?? 1000;
  const from = opts.fromUs ?? Number.NEGATIVE_INFINITY;
  const to = opts.toUs ?? Number.POSITIVE_INFINITY;
  const threshold = (opts.thresholdMs ?? 20) * 1000;
  const gcKind = (t: number): string => {
    const g = opts.gc?.find((e) => t >= e.startUs - interval && t <= e.startUs + e.durationUs + interval);
    return g ? `gc ${g.kind}` : "gc";
  };
  const stalls: Stall[] = [];
  // Runs of consecutive samples of one cause (a collection, a statement, a commit): their CPU time, gaps left out.
  const segments: Segment[] = [];
  let seg: Segment | undefined;
  const endSegment = () => {
    if (seg && seg.cpuMs * 1000 >= threshold / 4) segments.push({ ...seg, cpuMs: +seg.cpuMs.toFixed(1) });
    seg = undefined;
  };
  let busyUs = 0;
  let t = p.startTime;
  let cur: { start: number; end: number; by: Record<string, number> } | undefined;
  const close = () => {
    endSegment();
    const ran = cur ? Object.entries(cur.by).reduce((a, [k, v]) => (k.startsWith("no CPU") ? a : a + v), 0) : 0;
    if (cur && (cur.end - cur.start >= threshold || ran >= threshold)) {
      const entries = Object.entries(cur.by).sort((a, b) => b[1] - a[1]);
      stalls.push({
        startUs: cur.start,
        wallMs: (cur.end - cur.start) / 1000,
        cpuMs: ran / 1000,
        byCause: Object.fromEntries(entries.map(([k, v]) => [k, +(v / 1000).toFixed(1)])),
        cause: entries[0]![0],
      });
    }
    cur = undefined;
  };
  for (let i = 0; i < p.samples.length; i++) {
    const prev = t;
    t += p.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const id = p.samples[i]!;
    if (isIdle(id)) {
      close();
      continue;
    }
    const gap = t - prev;
    busyUs += gap;
    if (!cur) cur = { start: prev, end: t, by: {} };
    cur.end = t;
    // A gap beyond the interval: the thread did not run meanwhile (the sampler's signal waits for it to be scheduled).
    const ran = Math.min(gap, interval);
    let cat = catOf(id);
    if (cat === "gc") cat = gcKind(t);
    cur.by[cat] = (cur.by[cat] ?? 0) + ran;
    if (seg?.cause !== cat) {
      endSegment();
      seg = { startUs: prev, cause: cat, cpuMs: 0 };
    }
    seg.cpuMs += ran / 1000;
    if (gap > ran) cur.by["no CPU (other processes)"] = (cur.by["no CPU (other processes)"] ?? 0) + gap - ran;
  }
  close();
  const end = Math.min(to, t);
  const seconds = (end - Math.max(from, p.startTime)) / 1e6;
  return { stalls, seconds, busyMs: busyUs / 1000, segments };
}

export interface Segment {
  startUs: number;
  cause: string;
  cpuMs: number;
}

/** Runs of one cause of a quarter of the threshold or more: how many, how often, their CPU time. */
export function segmentTable(segments: Segment[], seconds: number, requests?: number): string {
  const by = new Map<string, number[]>();
  for (const s of segments) by.set(s.cause, [...(by.get(s.cause) ?? []), s.cpuMs]);
  const lines = [`cause | runs | per s${requests ? " | per 1000 requests" : ""} | CPU ms median / p90 / max`];
  for (const [k, ms] of [...by].sort((a, b) => b[1].length - a[1].length)) {
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
    lines.push(
      `${k} | ${ms.length} | ${(ms.length / seconds).toFixed(2)}${requests ? ` | ${((ms.length / requests) * 1000).toFixed(1)}` : ""} | ${at(0.5)} / ${at(0.9)} / ${ms[ms.length - 1]!.toFixed(1)}`,
    );
  }
  return lines.join("\n");
}

/** One line per cause: how many stalls it led, how often, their wall time, and its ms inside all stalls. */
export function stallTable(stalls: Stall[], seconds: number): string {
  const by = new Map<string, { n: number; walls: number[]; ms: number }>();
  const total = new Map<string, number>();
  for (const s of stalls) {
    const e = by.get(s.cause) ?? { n: 0, walls: [], ms: 0 };
    e.n++;
    e.walls.push(s.wallMs);
    by.set(s.cause, e);
    for (const [k, v] of Object.entries(s.byCause)) total.set(k, (total.get(k) ?? 0) + v);
  }
  const lines = [
    `busy periods over the threshold in ${seconds.toFixed(1)} s: ${stalls.length}`,
    "cause (largest share) | periods | per s | wall ms median / max | CPU ms median / max | ms of it in all periods",
  ];
  for (const [k, e] of [...by].sort((a, b) => b[1].n - a[1].n)) {
    const w = e.walls.sort((a, b) => a - b);
    const c = stalls
      .filter((s) => s.cause === k)
      .map((s) => s.cpuMs)
      .sort((a, b) => a - b);
    lines.push(
      `${k} | ${e.n} | ${(e.n / seconds).toFixed(2)} | ${w[Math.floor(w.length / 2)]!.toFixed(0)} / ${w[w.length - 1]!.toFixed(0)} | ${c[Math.floor(c.length / 2)]!.toFixed(0)} / ${c[c.length - 1]!.toFixed(0)} | ${(total.get(k) ?? 0).toFixed(0)}`,
    );
  }
  const others = [...total].filter(([k]) => !by.has(k)).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  if (others.length) lines.push(`also inside stalls: ${others.join(", ")}`);
  return lines.join("\n");
}

/** The `[gc]` lines bench/eld.cjs wrote to the server's stderr. */
export function gcEntries(stderr: string): GcEntry[] {
  const out: GcEntry[] = [];
  for (const m of stderr.matchAll(/\[gc\] start_us=(\d+) dur_us=(\d+) kind=(\w+)/g))
    out.push({ startUs: Number(m[1]), durationUs: Number(m[2]), kind: m[3]! });
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: tsx bench/stalls.ts <file.cpuprofile> [thresholdMs] [fromUs toUs]");
    process.exit(2);
  }
  const r = stallsOf(file, {
    thresholdMs: Number(process.argv[3] ?? 20),
    ...(process.argv[5] ? { fromUs: Number(process.argv[4]), toUs: Number(process.argv[5]) } : {}),
  });
  console.log(stallTable(r.stalls, r.seconds));
  console.log(segmentTable(r.segments, r.seconds));
  for (const s of r.stalls.slice(0, 40)) console.log(`  ${s.wallMs.toFixed(0)} ms`, JSON.stringify(s.byCause));
}
