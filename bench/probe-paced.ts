// The paced tail, investigated: autocannon's overallRate against the evenly paced client (bench/paced.ts) at the
// same rate, on the bare Fastify route and on the real server, back to back. The server runs with bench/eld.cjs
// preloaded (event-loop delay, CPU, run-queue wait and heap each second, printed around the paced run); GC=1 adds
// --trace-gc (GC=nvp: --trace-gc-nvp, each collection's phases), NODE_FLAGS more flags for node, PROF=1 --cpu-prof (500 µs samples) and, after the run, the
// event loop's stalls of the paced run by cause (bench/stalls.ts; STALL_MS the threshold, 20 ms), SQL_TIMING_FILE=<file> each SQL text's time inside SQLite
// (bench/sql-timing.cjs, written when the server stops), STRACE=1 counts the fsync/fdatasync calls of each of the server's
// threads during the paced run (STRACE=fsync,pread64,… other calls; strace is attached for that run only and slows the
// traced process, so read the latencies of a run without it). SLOW_LIST=1 lists the runs of slow requests (over 20 ms) by when
// they were due, and the collections of 2 ms or more on the same clock. GC_FILE=<file> keeps the paced run's GC lines.
// HEAP_SAMPLE=1: what the paced run promoted, by allocation site (bench/heap-sample.cjs; HEAP_SAMPLE_INTERVAL bytes between
// samples, 4096; the sampler slows the server, so read the latencies of a run without it); HEAP_SAMPLE_SNAPSHOT=<ms> a
// heap snapshot that long into the paced run instead.
// npx tsx bench/probe-paced.ts <rate=370> <seconds=10> <both|hello|server> <sqlite|postgres>
import { fork, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { freshDatabase } from "../server/test/helpers.js";
import { createProjectCli, ROOT, startServer } from "../server/test/server-process.js";
import { summariseHeapSample } from "./heap-sample-summary.js";
import { pacedLoad, pacedLoadInWorker } from "./paced.js";
import { gcEntries, segmentTable, stallsOf, stallTable } from "./stalls.js";
import { BENCH_ENV, DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const RATE = Number(process.argv[2] ?? 370);
const SECS = Number(process.argv[3] ?? 10);
const which = process.argv[4] ?? "both";
/** PROF=1: each run's profiles, emptied first. */
const PROF_DIR = `/tmp/probe-prof-${process.pid}`;
/** HEAP_SAMPLE=1: where the server writes the paced run's sampled survivors (bench/heap-sample.cjs). */
const HEAP_SAMPLE_FILE = `/tmp/probe-heap-sample-${process.pid}.json`;
if (which !== "server") {
  const child = fork(path.join(ROOT, "bench", "hello.mjs"), [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const port = await new Promise<number>((r) => child.once("message", (m) => r((m as { port: number }).port)));
  const url = `http://127.0.0.1:${port}/hello`;
  await autocannon({ url, connections: 50, duration: 2 });
  const ac = await autocannon({ url, connections: 50, duration: SECS, overallRate: RATE });
  console.log(`hello autocannon @${RATE}: p50 ${ac.latency.p50} p99 ${ac.latency.p99} max ${ac.latency.max} rps ${ac.requests.average}`);
  const p = await pacedLoad(url, { rate: RATE, seconds: SECS, next: () => ({ method: "GET", path: "/hello" }) });
  console.log(`hello paced @${RATE}:`, { ...p, slow: p.slow.length });
  child.kill("SIGTERM");
}
if (which !== "hello") {
  const db = await freshDatabase((process.argv[5] as "sqlite" | "postgres") ?? "sqlite");
  const project = await createProjectCli(db.env, "bench");
  const server = await startServer(
    {
      ...db.env,
      ...BENCH_ENV,
      ...(process.env.HEAP_SAMPLE ? { HEAP_SAMPLE: HEAP_SAMPLE_FILE } : {}),
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^HEAP_SAMPLE_(INTERVAL|SNAPSHOT)$/.test(k))),
      ...(process.env.SQL_TIMING_FILE ? { SQL_TIMING_FILE: process.env.SQL_TIMING_FILE } : {}),
    },
    {
      nodeArgs: [
        "--require",
        path.join(ROOT, "bench", "eld.cjs"),
        ...(process.env.GC ? [process.env.GC === "nvp" ? "--trace-gc-nvp" : "--trace-gc"] : []),
        ...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(" ") : []),
        ...(process.env.SQL_TIMING_FILE ? ["--require", path.join(ROOT, "bench", "sql-timing.cjs")] : []),
        ...(process.env.PROF ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`, "--cpu-prof-interval=500"] : []),
        ...(process.env.HEAP_SAMPLE ? ["--require", path.join(ROOT, "bench", "heap-sample.cjs")] : []),
      ],
    },
  );
  const traffic = new Traffic(project.clientId, { ...DEFAULT_TRAFFIC });
  const pool = traffic.pool();
  const req = () => {
    const t = pool.next().value ?? traffic.next();
    return { method: "POST", path: `/v3/client/evaluate/${t.action}`, body: t.body, headers: t.headers };
  };
  await pacedLoad(server.url, { rate: 300, seconds: DEFAULT_TRAFFIC.browsers / 300, next: req });
  // What autovacuum would have done by now (it is off on the machine's test server): statistics, and with them new
  // plans for the statements each connection prepared on the empty tables (docs/storage.md, "Query plans on
  // PostgreSQL"). Without it the probe read PostgreSQL at a fifth of the bench's rate.
  if (process.argv[5] === "postgres") {
    const c = new pg.Client({ connectionString: db.env.DATABASE_URL });
    await c.connect();
    await c.query("analyze");
    await c.end();
  }
  await autocannon({
    url: server.url,
    connections: 50,
    duration: 3,
    requests: [{ method: "POST", setupRequest: (r) => ({ ...r, ...req() }) }],
  });
  const ac = await autocannon({
    url: server.url,
    connections: 50,
    duration: SECS,
    overallRate: RATE,
    requests: [{ method: "POST", setupRequest: (r) => ({ ...r, ...req() }) }],
  });
  console.log(
    `evaluate autocannon @${RATE}: p50 ${ac.latency.p50} p99 ${ac.latency.p99} max ${ac.latency.max} rps ${ac.requests.average} non2xx ${ac.non2xx}`,
  );
  console.log(
    server
      .stderr()
      .split("\n")
      .filter((l) => l.includes("[eld]"))
      .slice(-SECS - 2)
      .join("\n"),
  );
  const trace = process.env.STRACE ? traceCalls(server.child.pid!, process.env.STRACE) : undefined;
  if (trace) await new Promise((r) => setTimeout(r, 500));
  // What the server prints during the paced run alone (its own buffers keep a short tail): GC traces, [gc] lines.
  let outDuring = "";
  let errDuring = "";
  const onOut = (d: Buffer) => (outDuring += d.toString());
  const onErr = (d: Buffer) => (errDuring += d.toString());
  server.child.stdout?.on("data", onOut);
  server.child.stderr?.on("data", onErr);
  const c0 = process.cpuUsage();
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  // IN_PROCESS=1: the paced client on this process's event loop, as before (bench/paced.ts, pacedLoadInWorker).
  const paced = process.env.IN_PROCESS ? pacedLoad : pacedLoadInWorker;
  if (process.env.HEAP_SAMPLE) server.child.kill("SIGUSR2");
  const p = await paced(server.url, { rate: RATE, seconds: SECS, next: req });
  if (process.env.HEAP_SAMPLE) {
    server.child.kill("SIGUSR2");
    for (let i = 0; i < 100 && !fs.existsSync(HEAP_SAMPLE_FILE); i++) await new Promise((r) => setTimeout(r, 100));
  }
  const toUs = Number(process.hrtime.bigint() / 1000n);
  const c1 = process.cpuUsage(c0);
  server.child.stdout?.off("data", onOut);
  server.child.stderr?.off("data", onErr);
  if (trace) console.log(await trace.stop(server.child.pid!));
  if (process.env.GC) console.log(gcSummary(outDuring, p.sent));
  // GC_FILE=<file>: the paced run's collections as node printed them.
  if (process.env.GC_FILE) fs.writeFileSync(process.env.GC_FILE, outDuring);
  if (process.env.HEAP_SAMPLE_SNAPSHOT) console.log(`heap snapshot: ${HEAP_SAMPLE_FILE}.heapsnapshot`);
  else if (process.env.HEAP_SAMPLE) console.log(summariseHeapSample(HEAP_SAMPLE_FILE, p.sent, Number(process.env.HEAP_SAMPLE_ROWS ?? 25)));
  console.log(`client cpu ${((c1.user + c1.system) / 1e4 / SECS).toFixed(0)}%`);
  console.log(
    server
      .stderr()
      .split("\n")
      .filter((l) => l.includes("[eld]"))
      .slice(-SECS - 1)
      .join("\n"),
  );
  const b: Record<number, number> = {};
  for (const [t] of p.slow) b[Math.floor(t / 250) * 250] = (b[Math.floor(t / 250) * 250] ?? 0) + 1;
  console.log(`evaluate paced @${RATE}:`, { ...p, slow: p.slow.length }, JSON.stringify(b));
  if (process.env.SLOW_LIST) {
    for (const g of gcEntries(errDuring).filter((g) => g.durationUs >= 2000))
      console.log(`  gc ${g.kind} at ${((g.startUs - fromUs) / 1000).toFixed(0)} ms: ${(g.durationUs / 1000).toFixed(1)} ms`);
    // Runs of slow requests (due within 50 ms of each other): when each began, how many, the worst latency.
    const runs: Array<{ at: number; n: number; worst: number }> = [];
    for (const [t, ms] of p.slow) {
      const last = runs[runs.length - 1];
      if (last && t - last.at - last.n * (1000 / RATE) < 50) {
        last.n++;
        last.worst = Math.max(last.worst, ms);
      } else runs.push({ at: t, n: 1, worst: ms });
    }
    for (const r of runs) console.log(`  slow run at ${r.at} ms: ${r.n} requests, worst ${r.worst} ms`);
  }
  await server.stop();
  await db.drop();
  if (process.env.PROF) {
    // The main thread's profile is the largest (the checkpointing thread writes one of its own).
    const files = fs.readdirSync(PROF_DIR).map((f) => path.join(PROF_DIR, f));
    const main = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
    if (main) {
      const r = stallsOf(main, { thresholdMs: Number(process.env.STALL_MS ?? 20), fromUs, toUs, gc: gcEntries(errDuring) });
      console.log(
        `${main}\n${stallTable(r.stalls, r.seconds)}\n${segmentTable(r.segments, r.seconds, p.sent)}\nmain thread busy ${(r.busyMs / r.seconds / 10).toFixed(0)} % of the paced run`,
      );
      if (process.env.STALL_LIST)
        for (const s of r.stalls) console.log(`  ${s.wallMs.toFixed(0)} ms (CPU ${s.cpuMs.toFixed(0)})`, JSON.stringify(s.byCause));
    }
  }
}
process.exit(0);

/**
 * The collections of the paced run from --trace-gc-nvp (GC=nvp): per kind, how many (per 1000 requests), their pauses
 * (wall ms: a busy machine stretches them) and the bytes they promoted to the old generation; --trace-gc lines (GC=1)
 * are printed as they are.
 */
function gcSummary(out: string, requests: number): string {
  const lines = out.split("\n");
  const nvp = lines.filter((l) => / gc=\w+ /.test(l));
  if (nvp.length === 0) return lines.filter((l) => /Mark-Compact|Scavenge/.test(l)).join("\n");
  const by = new Map<string, { pauses: number[]; promoted: number; allocated: number; survived: number[] }>();
  for (const l of nvp) {
    const f = (k: string) => Number(new RegExp(` ${k}=([\\d.]+)`).exec(l)?.[1] ?? 0);
    const kind = / gc=(\w+)/.exec(l)![1]!;
    const e = by.get(kind) ?? { pauses: [], promoted: 0, allocated: 0, survived: [] };
    e.pauses.push(f("pause"));
    e.survived.push(f("new_space_survived"));
    e.promoted += f("promoted");
    e.allocated += f("allocated");
    by.set(kind, e);
  }
  const rows = [...by].map(([k, e]) => {
    const p = e.pauses.sort((a, b) => a - b);
    const sum = p.reduce((a, b) => a + b, 0);
    // What a scavenge copies (its work, whatever the machine's load): the young objects still alive.
    const copied = e.survived.sort((a, b) => a - b)[Math.floor(e.survived.length / 2)]! / 1024;
    return `gc=${k}: ${p.length} (${((p.length / requests) * 1000).toFixed(2)} per 1000 requests), pause ms median ${p[Math.floor(p.length / 2)]} max ${p[p.length - 1]} total ${sum.toFixed(0)}, promoted ${(e.promoted / requests / 1024).toFixed(1)} KiB and allocated ${(e.allocated / requests / 1024).toFixed(0)} KiB per request, survivors copied median ${copied.toFixed(0)} KiB`;
  });
  // The longest mark-compact's main-thread phases of 1 ms or more: where its atomic pause went.
  const mc = nvp.filter((l) => / gc=mc /.test(l)).sort((a, b) => pauseOf(b) - pauseOf(a))[0];
  if (mc) {
    const phases = [...mc.matchAll(/ ([a-z_.]+)=([\d.]+)/g)]
      .filter(
        ([, k, v]) =>
          Number(v) >= 1 &&
          !/^(mutator|total_size|holes_size|allocated|promoted|semi_space|new_space|old_space|pool|scavenge_throughput|compaction_speed|average|current|allocation|nodes|promotion|incremental_marking_throughput|reduce_memory|compaction|background)/.test(
            k!,
          ),
      )
      .map(([, k, v]) => `${k}=${v}`);
    rows.push(`longest gc=mc: ${phases.join(" ")}`);
  }
  return rows.join("\n");
}

function pauseOf(l: string): number {
  return Number(/ pause=([\d.]+)/.exec(l)?.[1] ?? 0);
}

/** strace on every thread of `pid` (fsync and fdatasync, or the calls named); stop() prints each thread's count, total and longest. */
function traceCalls(pid: number, calls: string) {
  const out = `/tmp/probe-strace-${pid}.txt`;
  const names = calls === "1" ? "fsync,fdatasync" : calls;
  const st = spawn("strace", ["-f", "-T", "-e", `trace=${names}`, "-o", out, "-p", String(pid)], { stdio: "ignore" });
  const t0 = Date.now();
  return {
    async stop(main: number) {
      const secs = (Date.now() - t0) / 1000;
      st.kill("SIGINT");
      await new Promise((r) => st.once("exit", r));
      const by = new Map<string, { n: number; total: number; max: number }>();
      for (const line of fs.readFileSync(out, "utf8").split("\n")) {
        const m = /^(\d+)\s+(\w+)\(.*<([\d.]+)>$/.exec(line);
        if (!m) continue;
        const key = `${Number(m[1]) === main ? "main" : `tid ${m[1]}`} ${m[2]}`;
        const e = by.get(key) ?? { n: 0, total: 0, max: 0 };
        const ms = Number(m[3]) * 1000;
        by.set(key, { n: e.n + 1, total: e.total + ms, max: Math.max(e.max, ms) });
      }
      const rows = [...by].map(
        ([k, e]) => `${k}: ${(e.n / secs).toFixed(2)}/s, ${e.n} calls, ${e.total.toFixed(1)} ms, max ${e.max.toFixed(1)} ms`,
      );
      return `calls over ${secs.toFixed(1)} s:\n${rows.join("\n") || "none"}`;
    },
  };
}
