// CPU cost of one client evaluation without sockets or a load generator: the real app (embedded store, group commit)
// driven through app.inject, 50 at a time, with the bench's traffic after its pool of returning browsers was seen
// once. Prints CPU µs per evaluation (process.cpuUsage, all threads): steadier than req/s on a shared machine, and
// quick enough to run after each change. Run: npx tsx bench/inproc.ts [evaluations=6000] [--keep]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../server/src/app.js";
import { loadConfig } from "../server/src/config.js";
import { createServices } from "../server/src/services.js";
import { DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 6000);
const CONCURRENCY = 50;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-inproc-"));
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
const project = await services.repos.projects.create("inproc");
const clientId = project.environments.development.client_id;

const traffic = new Traffic(clientId, DEFAULT_TRAFFIC);
const statuses = new Map<number, number>();

async function run(requests: Iterable<{ action: string; body: string; headers: Record<string, string> }>): Promise<number> {
  const it = requests[Symbol.iterator]();
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let r = it.next(); !r.done; r = it.next()) {
        const t = r.value;
        const res = await app.inject({ method: "POST", url: `/v3/client/evaluate/${t.action}`, payload: t.body, headers: t.headers });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        done++;
      }
    }),
  );
  return done;
}

function* take(n: number) {
  for (let i = 0; i < n; i++) yield traffic.next();
}

let t0 = Date.now();
await run(traffic.pool());
console.log(`pool of returning browsers seen once: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
await run(take(1000));
statuses.clear();

// Several rounds: the lowest is the figure least disturbed by whatever else the machine was doing.
const ROUNDS = 4;
const perRound: number[] = [];
t0 = Date.now();
let done = 0;
for (let r = 0; r < ROUNDS; r++) {
  const cpu0 = process.cpuUsage();
  const n = await run(take(Math.ceil(N / ROUNDS)));
  const cpu = process.cpuUsage(cpu0);
  perRound.push(Math.round((cpu.user + cpu.system) / n));
  done += n;
}
const wall = Date.now() - t0;
console.log(
  `${done} evaluations: ${Math.min(...perRound)} µs CPU each at best (rounds ${perRound.join(", ")}), ${Math.round((done / wall) * 1000)} /s in process; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
);
await app.close();
await services.close();
if (process.argv.includes("--keep")) console.log(`store kept: ${path.join(dir, "tessera.db")}`);
else fs.rmSync(dir, { recursive: true, force: true });
