// Where the server's CPU goes when client evaluations come one at a time (as in a run paced at half of saturation on
// the embedded store) against many at once, by thread, on a machine shared with other work: wall-clock rates and
// latencies mean nothing there, but a thread's CPU time (/proc/<pid>/task/<tid>/schedstat, ns) and the number of
// requests in flight do not depend on the load. The real server (`tessera serve`, as bench/probe-paced.ts starts it)
// gets the bench's pool of returning browsers, then rounds alternating two modes over keep-alive HTTP:
// - `single`: one request at a time, the next sent GAP_MS after the answer (the server goes idle in between, as it
//   does between paced requests: each evaluation has its own batch of the group commit, its own wake-ups);
// - `burst`: CONCURRENCY (50) requests in flight (saturation: batches of many evaluations per commit).
// Each round prints CPU ms per request by thread (main = the event loop; the checkpointing worker; V8's platform
// threads, GC helpers among them, and the checkpointing worker: Node names neither, so a thread is named by when it
// started, t<ticks after the main thread>; libuv's pool) and the main thread's context switches per request.
// PERF=1 records each round's main thread with `perf record` (the server runs with --perf-basic-prof) into
// /tmp/spacing-<label>-<mode>-<n>.data (PERF_CALLGRAPH=dwarf with call chains); STRACE=1 counts the main thread's system calls into /tmp/spacing-<label>-<mode>-<n>.strace; NODE_FLAGS more flags for the server's node.
// SERVER_ENV="K=V K2=V2" adds settings to the server; SERVER_ENV_B, when set, starts a second server with those
// settings, and `single` rounds alternate the two request by request (same moments of the machine: an A/B pair).
// npx tsx bench/spacing.ts [requests per round=1500] [rounds=3] [--modes=single,burst]
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { freshDatabase } from "../server/test/helpers.js";
import { createProjectCli, startServer } from "../server/test/server-process.js";
import { pacedLoad } from "./paced.js";
import { BENCH_ENV, DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv[2] ?? 1500);
const ROUNDS = Number(process.argv[3] ?? 3);
const MODES = (process.argv.find((a) => a.startsWith("--modes="))?.slice(8) ?? "single,burst").split(",");
const GAP_MS = Number(process.env.GAP_MS ?? 1);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
let perfRuns = 0;
const parseEnv = (s: string | undefined) =>
  Object.fromEntries(
    (s ?? "")
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );

interface Target {
  label: string;
  url: string;
  pid: number;
  next: () => { action: string; body: string; headers: Record<string, string> };
  stop: () => Promise<void>;
}

async function start(label: string, extra: Record<string, string>): Promise<Target> {
  const db = await freshDatabase("sqlite");
  const project = await createProjectCli(db.env, "bench");
  const server = await startServer(
    { ...db.env, ...BENCH_ENV, ...extra },
    { nodeArgs: [...(process.env.PERF ? ["--perf-basic-prof"] : []), ...(process.env.NODE_FLAGS?.split(" ").filter(Boolean) ?? [])] },
  );
  const traffic = new Traffic(project.clientId, { ...DEFAULT_TRAFFIC });
  const pool = traffic.pool();
  const next = () => pool.next().value ?? traffic.next();
  const req = () => {
    const t = next();
    return { method: "POST", path: `/v3/client/evaluate/${t.action}`, body: t.body, headers: t.headers };
  };
  await pacedLoad(server.url, { rate: 300, seconds: DEFAULT_TRAFFIC.browsers / 300, next: req });
  return {
    label,
    url: server.url,
    pid: server.child.pid!,
    next,
    stop: async () => {
      await server.stop();
      await db.drop();
    },
  };
}

const mainStart = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]);

/** Each thread's CPU time (ns) and the main thread's context switches. */
function threads(pid: number): { cpu: Map<string, number>; switches: number } {
  const cpu = new Map<string, number>();
  let switches = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      // Node names neither V8's platform threads nor a worker's: a thread started later than the others (the
      // checkpointing worker, started with the store) is told by its start time (ticks after the main thread's).
      const started = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]);
      const name = Number(tid) === pid ? "main" : comm === "node" ? `t${started - mainStart(pid)}` : comm.replace(/\d+$/, "");
      cpu.set(name, (cpu.get(name) ?? 0) + ns);
      if (Number(tid) === pid) {
        const st = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
        switches = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(st)?.[1]) + Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(st)?.[1]);
      }
    } catch {}
  }
  return { cpu, switches };
}

function send(agent: http.Agent, url: string, t: ReturnType<Target["next"]>): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      `${url}/v3/client/evaluate/${t.action}`,
      { method: "POST", agent, headers: { ...t.headers, "content-length": Buffer.byteLength(t.body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    r.on("error", reject);
    r.end(t.body);
  });
}

/** Per-thread CPU ms per request (and the main thread's context switches) between two readings, as one line. */
function usage(
  target: Target,
  mode: string,
  before: ReturnType<typeof threads>,
  after: ReturnType<typeof threads>,
  non2xx: number,
): string {
  const names = [...after.cpu.keys()].sort((a, b) => (a === "main" ? -1 : b === "main" ? 1 : a.localeCompare(b)));
  let total = 0;
  const parts = names.flatMap((n) => {
    const ms = ((after.cpu.get(n) ?? 0) - (before.cpu.get(n) ?? 0)) / 1e6 / N;
    total += ms;
    return ms >= 0.0005 ? [`${n} ${ms.toFixed(3)}`] : [];
  });
  return `${target.label.padEnd(2)} ${mode.padEnd(6)} total ${total.toFixed(3)} ms/req | ${parts.join(" | ")} | main switches ${((after.switches - before.switches) / N).toFixed(1)}/req${non2xx ? ` | non2xx ${non2xx}` : ""}`;
}

/**
 * One round of `mode` on every target at once: `single` alternates the targets request by request (A, gap, B, gap,
 * …), so that an A/B pair shares each moment of the machine; `burst` runs the targets one after the other.
 */
async function round(targets: Target[], mode: string): Promise<string[]> {
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
  const tracers = targets.flatMap((target) => {
    const out = `/tmp/spacing-${target.label}-${mode}-${++perfRuns}`;
    return [
      process.env.PERF
        ? spawn(
            "perf",
            [
              "record",
              "-q",
              "-F",
              "4000",
              ...(process.env.PERF_CALLGRAPH ? ["--call-graph", process.env.PERF_CALLGRAPH] : []),
              "-t",
              String(target.pid),
              "-o",
              `${out}.data`,
            ],
            { stdio: "ignore" },
          )
        : undefined,
      // STRACE=1: the main thread's system calls during the round, counted (strace slows the thread: read the counts).
      process.env.STRACE ? spawn("strace", ["-c", "-o", `${out}.strace`, "-p", String(target.pid)], { stdio: "ignore" }) : undefined,
    ].filter((t) => t !== undefined);
  });
  if (tracers.length) await new Promise((r) => setTimeout(r, 300));
  const lines: string[] = [];
  const non2xx = targets.map(() => 0);
  if (mode === "single") {
    const before = targets.map((t) => threads(t.pid));
    for (let i = 0; i < N; i++)
      for (const [k, t] of targets.entries()) {
        if ((await send(agents[k]!, t.url, t.next())) >= 300) non2xx[k]!++;
        await new Promise((r) => setTimeout(r, GAP_MS));
      }
    const after = targets.map((t) => threads(t.pid));
    for (const [k, t] of targets.entries()) lines.push(usage(t, mode, before[k]!, after[k]!, non2xx[k]!));
  } else {
    for (const [k, t] of targets.entries()) {
      const before = threads(t.pid);
      let i = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (i++ < N) if ((await send(agents[k]!, t.url, t.next())) >= 300) non2xx[k]!++;
        }),
      );
      lines.push(usage(t, mode, before, threads(t.pid), non2xx[k]!));
    }
  }
  for (const tracer of tracers) {
    tracer.kill("SIGINT");
    await new Promise((r) => tracer.once("exit", r));
  }
  for (const a of agents) a.destroy();
  return lines;
}

const targets = [await start("A", parseEnv(process.env.SERVER_ENV))];
if (process.env.SERVER_ENV_B !== undefined) targets.push(await start("B", parseEnv(process.env.SERVER_ENV_B)));
// Warm every target with one burst round (JIT, caches), not printed.
await round(targets, "burst");
for (let r = 0; r < ROUNDS; r++)
  for (const mode of MODES)
    for (const line of await round(r % 2 ? [...targets].reverse() : targets, mode)) console.log(`round ${r + 1} ${line}`);
for (const t of targets) await t.stop();
process.exit(0);
