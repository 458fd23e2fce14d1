// CPU cost of one client evaluation without sockets or a load generator: the real app (embedded store, group commit)
// driven through app.inject, 50 at a time, with the bench's traffic after its pool of returning browsers was seen
// once. Prints CPU µs per evaluation (process.cpuUsage, all threads): steadier than req/s on a shared machine, and
// quick enough to run after each change. Run: npx tsx bench/inproc.ts [evaluations=6000] [--keep] [--pg]
// --pg: on a fresh PostgreSQL database (TEST_DATABASE_URL, else postgres@127.0.0.1:5432) instead, printing also the CPU
// of the PostgreSQL backends connected to that database (/proc; other databases' backends, such as other sessions'
// tests, are not counted) per evaluation.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import { freshDatabase } from "../server/test/helpers.js";
import { startInProcess, take } from "./in-process.js";
import { DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 6000);
const PG = process.argv.includes("--pg");

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** CPU time (ms) used so far by each PostgreSQL backend connected to `database`, by pid. */
function backendsCpuMs(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/comm`, "utf8").trim() !== "postgres") continue;
      // A backend's title: "postgres: <user> <database> <client> <state>".
      const title = fs.readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!title.split(" ").includes(database)) continue;
      const fields = fs.readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ");
      out.set(Number(d), ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}
/** CPU (ms) the backends used between two readings; a backend that started meanwhile counts from 0. */
const backendsDelta = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

const database = PG ? await freshDatabase("postgres") : undefined;
const dbName = database ? new URL(database.env.DATABASE_URL as string).pathname.slice(1) : "";
const server = await startInProcess("inproc", database?.env ?? {});
const traffic = new Traffic(server.clientId, DEFAULT_TRAFFIC);
const statuses = new Map<number, number>();

let t0 = Date.now();
await server.evaluate(traffic.pool());
console.log(`pool of returning browsers seen once: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
await server.evaluate(take(traffic, 1000));
// What autovacuum does on a real server once a table grew (it is off on the machine's test server): statistics, and so
// new plans for the statements each connection prepared on the empty tables (docs/storage.md, "Query plans").
if (database) {
  const c = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await c.connect();
  await c.query("analyze");
  await c.end();
}

// Several rounds: the lowest is the figure least disturbed by whatever else the machine was doing.
const ROUNDS = 4;
const perRound: number[] = [];
const pgPerRound: number[] = [];
t0 = Date.now();
let done = 0;
for (let r = 0; r < ROUNDS; r++) {
  const cpu0 = process.cpuUsage();
  const pg0 = PG ? backendsCpuMs(dbName) : undefined;
  const n = await server.evaluate(take(traffic, Math.ceil(N / ROUNDS)), statuses);
  const cpu = process.cpuUsage(cpu0);
  perRound.push(Math.round((cpu.user + cpu.system) / n));
  if (pg0) pgPerRound.push(Math.round((backendsDelta(pg0, backendsCpuMs(dbName)) * 1000) / n));
  done += n;
}
const wall = Date.now() - t0;
console.log(
  `${done} evaluations${PG ? " on PostgreSQL" : ""}: ${Math.min(...perRound)} µs CPU each at best (rounds ${perRound.join(", ")}), ${Math.round((done / wall) * 1000)} /s in process; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
);
if (PG)
  console.log(
    `PostgreSQL backends of its database: ${Math.min(...pgPerRound)} µs CPU per evaluation at best (rounds ${pgPerRound.join(", ")}; in clock ticks of ${1000 / CLOCK_TICKS} ms)`,
  );
const keep = process.argv.includes("--keep");
await server.close(keep);
if (keep) console.log(`store kept: ${PG ? database?.env.DATABASE_URL : server.file}`);
else await database?.drop();
