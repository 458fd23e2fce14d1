// An open-loop load generator paced evenly (docs/operations.md): one request every 1/rate s, each on a free keep-alive
// connection, whatever the answers before it. Autocannon's `overallRate` is a per-connection budget per second,
// reset by a 1 s timer: every connection sends its share back to back at the start of each second and then waits,
// so "half of saturation" arrives as a burst at full concurrency once a second and the tail measured is the
// saturated one (docs/operations.md, "Throughput, latency and sizing"). Latency here is
// counted from the time a request was due, so a stalled client or server cannot hide a delay (no coordinated omission).

import { once } from "node:events";
import http from "node:http";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

export interface PacedRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface PacedResult {
  rate: number;
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Requests per second actually completed over the run. */
  achieved: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Due time of each request slower than `slowMs` (ms from the run's start) and its latency, for stall hunting. */
  slow: Array<[number, number]>;
  /**
   * This process's own event-loop delay during the run (p99 and max, ms) and its longest garbage collection: a request
   * is timed from when it was due, so a stall of the load generator itself reads as the server's latency.
   */
  client_delay_p99_ms: number;
  client_delay_max_ms: number;
  client_gc_max_ms: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function pacedLoad(
  url: string,
  opts: { rate: number; seconds: number; next: () => PacedRequest; maxSockets?: number; slowMs?: number },
): Promise<PacedResult> {
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 });
  const interval = 1000 / opts.rate;
  const total = Math.round(opts.rate * opts.seconds);
  const latencies: number[] = [];
  const slow: Array<[number, number]> = [];
  const slowMs = opts.slowMs ?? 20;
  let sent = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let pending = 0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let gcMax = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration);
  });
  gcs.observe({ entryTypes: ["gc"] });
  delay.enable();
  const start = performance.now();
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));

  const send = (due: number) => {
    const r = opts.next();
    pending++;
    const req = http.request({ host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
      res.on("data", () => {});
      res.on("end", () => {
        const ms = performance.now() - due;
        latencies.push(ms);
        if (ms > slowMs) slow.push([Math.round(due - start), +ms.toFixed(1)]);
        if (res.statusCode && res.statusCode >= 200 && res.statusCode < 300) ok++;
        else non2xx++;
        if (--pending === 0 && sent === total) done();
      });
    });
    req.on("error", () => {
      errors++;
      if (--pending === 0 && sent === total) done();
    });
    req.end(r.body);
  };

  // Each tick sends every request that has fallen due; a timer wakes at the next due time.
  const tick = () => {
    const now = performance.now();
    while (sent < total && start + sent * interval <= now) send(start + sent++ * interval);
    if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    else if (pending === 0) done();
  };
  tick();
  await finished;
  const elapsed = (performance.now() - start) / 1000;
  delay.disable();
  gcs.disconnect();
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  const round = (x: number) => +x.toFixed(2);
  return {
    rate: opts.rate,
    sent,
    ok,
    non2xx,
    errors,
    achieved: Math.round((ok + non2xx) / elapsed),
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? Number.NaN),
    slow,
    client_delay_p99_ms: round(delay.percentile(99) / 1e6),
    client_delay_max_ms: round(delay.max / 1e6),
    client_gc_max_ms: round(gcMax),
  };
}

/**
 * pacedLoad in a worker thread of its own, on requests made beforehand. The bench's process holds what its other phases
 * kept (evaluation ids, results), and its collections stopped the paced client's event loop with everything else: a
 * request due meanwhile was sent late, and timed from when it was due, that stall counted as the server's latency. A
 * worker has a heap of its own, collected apart, and makes no traffic while it sends. It inherits the process's cores.
 */
export async function pacedLoadInWorker(
  url: string,
  opts: { rate: number; seconds: number; next: () => PacedRequest; maxSockets?: number; slowMs?: number },
): Promise<PacedResult> {
  const { next, ...rest } = opts;
  const requests = Array.from({ length: Math.round(opts.rate * opts.seconds) }, () => next());
  const worker = new Worker(new URL(import.meta.url), { workerData: { paced: { url, ...rest, requests } } });
  try {
    const [result] = (await Promise.race([once(worker, "message"), once(worker, "error").then(([e]) => Promise.reject(e))])) as [
      PacedResult,
    ];
    return result;
  } finally {
    await worker.terminate();
  }
}

if (!isMainThread && (workerData as { paced?: unknown } | null)?.paced) {
  const { url, requests, ...opts } = (workerData as { paced: { url: string; requests: PacedRequest[]; rate: number; seconds: number } })
    .paced;
  let i = 0;
  void pacedLoad(url, { ...opts, next: () => requests[i++]! }).then((r) => parentPort?.postMessage(r));
}
