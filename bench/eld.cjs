// Preloaded into the server by bench probes (NODE_OPTIONS=--require): event-loop delay and CPU each second, to stderr.
// The main thread only: --require also runs in worker threads (the checkpointer), whose lines would interleave.
const { isMainThread } = require("node:worker_threads");
if (isMainThread) start();

function start() {
  const { monitorEventLoopDelay, performance } = require("node:perf_hooks");
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  // Each collection of 1 ms or more, on the monotonic clock of the CPU profile (bench/stalls.ts reads these lines).
  const { PerformanceObserver, constants } = require("node:perf_hooks");
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
  };
  const originUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.duration >= 1)
        process.stderr.write(
          `[gc] start_us=${Math.round(originUs + e.startTime * 1000)} dur_us=${Math.round(e.duration * 1000)} kind=${kinds[e.detail?.kind] ?? e.detail?.kind}\n`,
        );
  }).observe({ entryTypes: ["gc"] });
  const fs = require("node:fs");
  // This thread's time spent runnable but waiting for a CPU (schedstat field 2, ns): other processes taking the cores.
  const schedFile = `/proc/self/task/${process.pid}/schedstat`;
  const waited = () => Number(fs.readFileSync(schedFile, "utf8").split(" ")[1]);
  let wait = waited();
  let cpu = process.cpuUsage();
  let elu = performance.eventLoopUtilization();
  const t0 = Date.now();
  setInterval(() => {
    const c = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const e = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const m = process.memoryUsage();
    const w = waited();
    const runq = ((w - wait) / 1e6).toFixed(0);
    wait = w;
    process.stderr.write(
      `[eld] t=${Date.now() - t0} p50=${(h.percentile(50) / 1e6).toFixed(1)} p99=${(h.percentile(99) / 1e6).toFixed(1)} max=${(h.max / 1e6).toFixed(1)} cpu=${((c.user + c.system) / 1e4).toFixed(0)}% elu=${(e.utilization * 100).toFixed(0)}% runq_wait=${runq}ms heap=${(m.heapUsed / 2 ** 20).toFixed(0)}M rss=${(m.rss / 2 ** 20).toFixed(0)}M\n`,
    );
    h.reset();
  }, 1000).unref();
}
