// Preloaded into the server by bench/probe-paced.ts (HEAP_SAMPLE=<file>): what the paced run promotes to the old
// generation, by where it was allocated. On the first SIGUSR2 V8's sampling heap profiler starts, keeping the samples
// of objects a mark-compact collects but dropping those a scavenge collects; on the second it stops and writes the
// profile to <file>. Its samples are then the objects of the run that survived the young generation (promoted, whether
// they died later in a mark-compact or are still alive), plus the few still young when it stopped: the bytes that
// --trace-gc-nvp counts as promoted, with their allocation sites (bench/heap-sample-summary.ts reads the file).
const { isMainThread } = require("node:worker_threads");
if (isMainThread && process.env.HEAP_SAMPLE) start(process.env.HEAP_SAMPLE);

function start(file) {
  const fs = require("node:fs");
  const { Session } = require("node:inspector");
  const session = new Session();
  session.connect();
  let sampling = false;
  let snapshots = 0;
  process.on("SIGUSR2", () => {
    // HEAP_SAMPLE_SNAPSHOT=<ms>: instead, one heap snapshot that long after the first signal (<file>.heapsnapshot), to
    // find what holds the objects of requests already answered.
    if (process.env.HEAP_SAMPLE_SNAPSHOT) {
      if (snapshots++ > 0) return;
      setTimeout(() => {
        require("node:v8").writeHeapSnapshot(`${file}.heapsnapshot`);
        fs.writeFileSync(file, "{}");
        process.stderr.write("[heap-sample] snapshot written\n");
      }, Number(process.env.HEAP_SAMPLE_SNAPSHOT));
      return;
    }
    if (!sampling) {
      sampling = true;
      session.post("HeapProfiler.enable");
      session.post("HeapProfiler.startSampling", {
        samplingInterval: Number(process.env.HEAP_SAMPLE_INTERVAL ?? 4096),
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: false,
      });
      process.stderr.write("[heap-sample] started\n");
      return;
    }
    session.post("HeapProfiler.stopSampling", (err, r) => {
      if (err) process.stderr.write(`[heap-sample] ${err.message}\n`);
      else fs.writeFileSync(file, JSON.stringify(r.profile));
      process.stderr.write(`[heap-sample] written ${file}\n`);
    });
  });
}
