// CPU cost of one client evaluation without sockets or a load generator: the real app (embedded store, group commit)
// driven through app.inject, 50 at a time, with the bench's traffic after its pool of returning browsers was seen
// once. Prints CPU µs per evaluation (process.cpuUsage, all threads): steadier than req/s on a shared machine, and
// quick enough to run after each change. Run: npx tsx bench/inproc.ts [evaluations=6000] [--keep]
import { startInProcess, take } from "./in-process.js";
import { DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 6000);

const server = await startInProcess("inproc");
const traffic = new Traffic(server.clientId, DEFAULT_TRAFFIC);
const statuses = new Map<number, number>();

let t0 = Date.now();
await server.evaluate(traffic.pool());
console.log(`pool of returning browsers seen once: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
await server.evaluate(take(traffic, 1000));

// Several rounds: the lowest is the figure least disturbed by whatever else the machine was doing.
const ROUNDS = 4;
const perRound: number[] = [];
t0 = Date.now();
let done = 0;
for (let r = 0; r < ROUNDS; r++) {
  const cpu0 = process.cpuUsage();
  const n = await server.evaluate(take(traffic, Math.ceil(N / ROUNDS)), statuses);
  const cpu = process.cpuUsage(cpu0);
  perRound.push(Math.round((cpu.user + cpu.system) / n));
  done += n;
}
const wall = Date.now() - t0;
console.log(
  `${done} evaluations: ${Math.min(...perRound)} µs CPU each at best (rounds ${perRound.join(", ")}), ${Math.round((done / wall) * 1000)} /s in process; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
);
const keep = process.argv.includes("--keep");
await server.close(keep);
if (keep) console.log(`store kept: ${server.file}`);
