// Where the server's memory goes over many evaluations, beside the bench's RSS figure (which swings by tens of MiB
// as V8 grows and shrinks its reserved heap): the real app (embedded store, group commit) driven in process with the
// bench's traffic, 5,000 evaluations per traffic seed as in the bench's memory phase; every 10,000, RSS before and
// after a full GC, the JS heap used and reserved, and memory held outside the heap. A leak shows as heap used (after
// GC) that keeps growing. Run: node --expose-gc --import tsx bench/heap.ts [evaluations=100000]
import { startInProcess, take } from "./in-process.js";
import { DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100_000);
const CHUNK = 5_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("run with node --expose-gc --import tsx bench/heap.ts");
  process.exit(2);
}

const server = await startInProcess("heap");

const mib = (b: number) => Math.round(b / 1048576);
let seed = 1;
for (let done = 0; done < N; ) {
  const traffic = new Traffic(server.clientId, { ...DEFAULT_TRAFFIC, seed: seed++ });
  done += await server.evaluate(take(traffic, Math.min(CHUNK, N - done)));
  if (done % 10_000 === 0 || done === N) {
    const before = process.memoryUsage().rss;
    gc();
    const m = process.memoryUsage();
    console.log(
      `${String(done).padStart(7)} evaluations: RSS ${mib(before)} MiB (${mib(m.rss)} after GC), JS heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)} MiB reserved, outside the heap ${mib(m.external)} MiB`,
    );
  }
}
await server.close();
