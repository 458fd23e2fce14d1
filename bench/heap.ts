// Where the server's memory goes over many evaluations, beside the bench's RSS figure (which swings by tens of MiB
// as V8 grows and shrinks its reserved heap): the real app (embedded store, group commit) driven in process with the
// bench's traffic, 5,000 evaluations per traffic seed as in the bench's memory phase; every 10,000, RSS before and
// after a full GC, the JS heap used and reserved, and memory held outside the heap. A leak shows as heap used (after
// GC) that keeps growing. Run: node --expose-gc --import tsx bench/heap.ts [evaluations=100000]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../server/src/app.js";
import { loadConfig } from "../server/src/config.js";
import { createServices } from "../server/src/services.js";
import { DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100_000);
const CHUNK = 5_000;
const CONCURRENCY = 50;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("run with node --expose-gc --import tsx bench/heap.ts");
  process.exit(2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-heap-"));
const services = await createServices(
  loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    DATA_DIR: dir,
    BOOTSTRAP_PROJECT: "0",
    PUBLIC_URL: "http://localhost:8080",
    TRUST_PROXY: "1",
    CLIENT_RATE_LIMIT: "1000000000",
    CLIENT_ID_RATE_LIMIT: "1000000000",
  }),
);
const app = await buildApp(services, { logger: false });
await app.ready();
const clientId = (await services.repos.projects.create("heap")).environments.development.client_id;

const mib = (b: number) => Math.round(b / 1048576);
let seed = 1;
for (let done = 0; done < N; ) {
  const traffic = new Traffic(clientId, { ...DEFAULT_TRAFFIC, seed: seed++ });
  let left = Math.min(CHUNK, N - done);
  done += left;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) {
        const t = traffic.next();
        await app.inject({ method: "POST", url: `/v3/client/evaluate/${t.action}`, payload: t.body, headers: t.headers });
      }
    }),
  );
  if (done % 10_000 === 0 || done === N) {
    const before = process.memoryUsage().rss;
    gc();
    const m = process.memoryUsage();
    console.log(
      `${String(done).padStart(7)} evaluations: RSS ${mib(before)} MiB (${mib(m.rss)} after GC), JS heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)} MiB reserved, outside the heap ${mib(m.external)} MiB`,
    );
  }
}
await app.close();
await services.close();
fs.rmSync(dir, { recursive: true, force: true });
