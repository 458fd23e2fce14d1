// The paced tail, investigated: autocannon's overallRate against the evenly paced client (bench/paced.ts) at the
// same rate, on the bare Fastify route and on the real server, back to back. The server runs with bench/eld.cjs
// preloaded (event-loop delay, CPU, run-queue wait and heap each second, printed around the paced run); GC=1 adds
// --trace-gc, PROF=1 --cpu-prof into /tmp/thru20prof, SQL_TIMING_FILE=<file> each SQL text's time inside SQLite
// (bench/sql-timing.cjs, written when the server stops), STRACE=1 counts the fsync/fdatasync calls of each of the server's
// threads during the paced run (STRACE=fsync,pread64,… other calls; strace is attached for that run only and slows the
// traced process, so read the latencies of a run without it).
// npx tsx bench/probe-paced.ts <rate=370> <seconds=10> <both|hello|server> <sqlite|postgres>
import { fork, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { freshDatabase } from "../server/test/helpers.js";
import { createProjectCli, ROOT, startServer } from "../server/test/server-process.js";
import { pacedLoad } from "./paced.js";
import { BENCH_ENV, DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const RATE = Number(process.argv[2] ?? 370);
const SECS = Number(process.argv[3] ?? 10);
const which = process.argv[4] ?? "both";
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
    { ...db.env, ...BENCH_ENV, ...(process.env.SQL_TIMING_FILE ? { SQL_TIMING_FILE: process.env.SQL_TIMING_FILE } : {}) },
    {
      nodeArgs: [
        "--require",
        path.join(ROOT, "bench", "eld.cjs"),
        ...(process.env.GC ? ["--trace-gc"] : []),
        ...(process.env.SQL_TIMING_FILE ? ["--require", path.join(ROOT, "bench", "sql-timing.cjs")] : []),
        ...(process.env.PROF ? ["--cpu-prof", "--cpu-prof-dir=/tmp/thru20prof", "--trace-gc"] : []),
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
  const c0 = process.cpuUsage();
  const p = await pacedLoad(server.url, { rate: RATE, seconds: SECS, next: req });
  const c1 = process.cpuUsage(c0);
  if (trace) console.log(await trace.stop(server.child.pid!));
  if (process.env.GC)
    console.log(
      server
        .stdout()
        .split("\n")
        .filter((l) => /Mark-Compact|Scavenge/.test(l))
        .slice(-60)
        .join("\n"),
    );
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
  await server.stop();
  await db.drop();
}
process.exit(0);

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
