// CPU cost of one client evaluation without sockets or a load generator: the real app (embedded store, group commit)
// driven through app.inject, 50 at a time, with the bench's traffic after its pool of returning browsers was seen
// once. Prints CPU µs per evaluation (process.cpuUsage, all threads): steadier than req/s on a shared machine, and
// quick enough to run after each change. Run: npx tsx bench/inproc.ts [evaluations=6000] [--keep] [--pg] [--sessions]
// --sessions: as `npm run bench`'s page views against logins (run.ts): the backend consumes each pool login (the browser
// is then signed in), then the pool's browsers from their usual IP, without drift, send only `access` (a signed-in
// user's page views), then only `login`: CPU µs per request of each, and their ratio; then never-seen browsers' logins
// and sign-ups (a new user each).
// --profile: a V8 CPU profile of the measured rounds of each kind (node:inspector), summarised by bench/profile.ts and
// written to bench/results/profiles/inproc-<kind>.cpuprofile.
// --browsers=N: a pool of N returning browsers (and N ÷ 1.5 users) instead of the bench's 6,000, for a short run.
// --callgrind: run under `valgrind --tool=callgrind --instr-atstart=no`: instructions are counted during each measured
// phase only (callgrind_control), each phase dumped on its own (its label in the dump's header), repeatable under load:
//   NODE_OPTIONS=--experimental-async-context-frame valgrind --tool=callgrind --instr-atstart=no \
//     --smc-check=all-non-file --callgrind-out-file=/tmp/cg.%p node --import tsx bench/inproc.ts 200 --sessions \
//     --browsers=300 --callgrind
//   then `grep totals: /tmp/cg.<pid>.*` (instructions per phase; divide by its requests).
// --sql-timing: the time spent inside SQLite per statement during the measured rounds of each kind (bench/sql-timing.cjs,
// preloaded here), written to bench/results/profiles/inproc-<kind>.sql.json and its heaviest printed; with --pg, each
// statement's round trip as the instance waited for it, and the statements per request in all and of each text.
// --pg: on a fresh PostgreSQL database (TEST_DATABASE_URL, else postgres@127.0.0.1:5432) instead, printing also the CPU
// of the PostgreSQL backends connected to that database (/proc; other databases' backends, such as other sessions'
// tests, are not counted) per evaluation.
// --pg-statements (with --pg): what each statement cost inside PostgreSQL during the measured rounds, from
// pg_stat_statements (the server must preload it: shared_preload_libraries; the extension is created in the admin
// database if missing): per request, calls, execution and planning time, buffers hit, WAL records, full-page images
// and bytes, heaviest first.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";
import { ADMIN_URL, freshDatabase } from "../server/test/helpers.js";
import { startInProcess, take } from "./in-process.js";
import { summariseProfile } from "./profile.js";
import { type ClientRequest, DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

// As `serve` runs on Node 22 and 23 (bin/tessera.mjs): with AsyncContextFrame, not the promise hooks that tax every
// promise (and add to the garbage collected). Without it this bench measured about 2 % more CPU than the server spends.
const ASYNC_CONTEXT_FRAME = "--experimental-async-context-frame";
if (
  Number(process.versions.node.split(".")[0]) < 24 &&
  !process.execArgv.includes(ASYNC_CONTEXT_FRAME) &&
  !(process.env.NODE_OPTIONS ?? "").includes(ASYNC_CONTEXT_FRAME)
) {
  // execve is Node 22.15's (not yet in its types): replaces this process, keeping its id, files and pipes.
  (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve?.(
    process.execPath,
    [process.execPath, ASYNC_CONTEXT_FRAME, ...process.execArgv, ...process.argv.slice(1)],
    process.env,
  );
}

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 6000);
const PG = process.argv.includes("--pg");
const SESSIONS = process.argv.includes("--sessions");
const PROFILE = process.argv.includes("--profile");
const SQL_TIMING = process.argv.includes("--sql-timing");
const CALLGRIND = process.argv.includes("--callgrind");
const PG_STATEMENTS = PG && process.argv.includes("--pg-statements");
// Under callgrind the process runs ~50-100 times slower, so the per-process caches trusted for a second or two (the
// policies, the environment by client id, the lists: caches.ts ShortCache) expired at nearly every evaluation and their
// reloads (queries, JSON parsing) were counted as an evaluation's work, which at full speed they are once in a thousand.
// The clock the code reads runs CALLGRIND_SLOWDOWN (default 100) times slower meanwhile, as it would at full speed.
if (CALLGRIND) {
  const slowdown = Number(process.env.CALLGRIND_SLOWDOWN ?? 100);
  const realNow = Date.now.bind(Date);
  const start = realNow();
  Date.now = () => start + Math.floor((realNow() - start) / slowdown);
}
/** Tells the callgrind running this process to start or stop counting, or to dump what it counted under a label. */
const callgrind = (...args: string[]) => spawnSync("callgrind_control", [...args, String(process.pid)], { stdio: "ignore" });
if (SQL_TIMING) createRequire(import.meta.url)("./sql-timing.cjs");
const sqlTiming = (globalThis as { sqlTiming?: { reset(): void; dump(file: string): void } }).sqlTiming;

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
const browsers = Number(process.argv.find((a) => a.startsWith("--browsers="))?.slice("--browsers=".length) ?? DEFAULT_TRAFFIC.browsers);
const traffic = new Traffic(server.clientId, { ...DEFAULT_TRAFFIC, browsers, users: Math.ceil(browsers / 1.5) });
const statuses = new Map<number, number>();

const t0 = Date.now();
const poolIds: string[] = [];
await server.evaluate(traffic.pool(), undefined, 50, poolIds);
console.log(`pool of returning browsers seen once: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (SESSIONS) {
  const consumed = await server.consume(poolIds);
  console.log(`pool logins consumed: ${consumed} of ${poolIds.length}`);
}
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
/** `n` requests in ROUNDS rounds: the best round's CPU µs per request (and of the PostgreSQL backends), every round's. */
async function measure(next: () => Generator<ClientRequest>, label: string): Promise<number> {
  const perRound: number[] = [];
  const pgPerRound: number[] = [];
  const inspector = PROFILE ? new Session() : undefined;
  if (inspector) {
    inspector.connect();
    await inspector.post("Profiler.enable");
    await inspector.post("Profiler.start");
  }
  sqlTiming?.reset();
  if (PG_STATEMENTS) await pgStatements("reset");
  if (CALLGRIND) callgrind("-i", "on");
  const t0 = Date.now();
  let done = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const cpu0 = process.cpuUsage();
    const pg0 = PG ? backendsCpuMs(dbName) : undefined;
    const n = await server.evaluate(next(), statuses);
    const cpu = process.cpuUsage(cpu0);
    perRound.push(Math.round((cpu.user + cpu.system) / n));
    if (pg0) pgPerRound.push(Math.round((backendsDelta(pg0, backendsCpuMs(dbName)) * 1000) / n));
    done += n;
  }
  const wall = Date.now() - t0;
  if (PG_STATEMENTS) await pgStatements(label, done);
  if (CALLGRIND) {
    callgrind("-i", "off");
    callgrind(`--dump=${slug(label)} ${done}`);
  }
  if (sqlTiming) {
    const file = path.join(import.meta.dirname, "results", "profiles", `inproc-${slug(label)}.sql.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    sqlTiming.dump(file);
    const rows = JSON.parse(fs.readFileSync(file, "utf8")) as Array<{ total_ms: number; calls: number; us_per_call: number; sql: string }>;
    const calls = rows.reduce((n, r) => n + r.calls, 0);
    console.log(
      `${PG ? "round trips to PostgreSQL" : "inside SQLite"} during the ${label} (${file}): ${(calls / done).toFixed(2)} statements per request`,
    );
    for (const r of rows.slice(0, PG ? 30 : 15))
      console.log(
        `${String(Math.round((r.total_ms * 1000) / done)).padStart(5)} µs/request  ${String(r.us_per_call).padStart(6)} µs × ${(r.calls / done).toFixed(2)}  ${r.sql.slice(0, 110)}`,
      );
  }
  if (inspector) {
    const { profile } = await inspector.post("Profiler.stop");
    inspector.disconnect();
    const dir = path.join(import.meta.dirname, "results", "profiles");
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `inproc-${slug(label)}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    const sum = summariseProfile(file, 25);
    console.log(`profile of the ${label} (${file}), self time:`);
    for (const x of sum.by_package.slice(0, 10)) console.log(`${x.self_percent.toFixed(1).padStart(6)} %  ${x.package}`);
    for (const x of sum.top) console.log(`${x.self_percent.toFixed(1).padStart(6)} %  ${x.function}  ${x.where}`);
  }
  console.log(
    `${done} ${label}${PG ? " on PostgreSQL" : ""}: ${Math.min(...perRound)} µs CPU each at best (rounds ${perRound.join(", ")}), ${Math.round((done / wall) * 1000)} /s in process; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  if (PG)
    console.log(
      `PostgreSQL backends of its database: ${Math.min(...pgPerRound)} µs CPU per request at best (rounds ${pgPerRound.join(", ")}; in clock ticks of ${1000 / CLOCK_TICKS} ms)`,
    );
  statuses.clear();
  return Math.min(...perRound);
}

/** --pg-statements: empties pg_stat_statements ("reset"), or prints what the statements of this database cost since. */
async function pgStatements(label: string, done = 1): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query("create extension if not exists pg_stat_statements");
    if (label === "reset") {
      await c.query("select pg_stat_statements_reset()");
      return;
    }
    const { rows } = await c.query(
      `select s.calls, s.total_exec_time, s.total_plan_time, s.rows, s.shared_blks_hit, s.shared_blks_read, s.shared_blks_dirtied,
              s.wal_records, s.wal_fpi, s.wal_bytes, s.query
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = $1 order by s.total_exec_time + s.total_plan_time desc`,
      [dbName],
    );
    const per = (v: unknown) => Number(v) / done;
    const sum = (k: string) => rows.reduce((n, r) => n + Number(r[k]), 0);
    console.log(
      `pg_stat_statements, ${label}: ${per(sum("calls")).toFixed(2)} statements, ${Math.round(per(sum("total_exec_time")) * 1000)} µs executing, ${Math.round(per(sum("total_plan_time")) * 1000)} µs planning, ${per(sum("shared_blks_hit")).toFixed(1)} buffers hit, ${per(sum("shared_blks_dirtied")).toFixed(2)} dirtied, ${per(sum("wal_records")).toFixed(1)} WAL records, ${per(sum("wal_fpi")).toFixed(2)} full-page images, ${Math.round(per(sum("wal_bytes")))} WAL bytes per request`,
    );
    console.log("   µs exec  µs plan  calls  rows  hit  dirtied  WAL rec  fpi  WAL B  (per request)  statement");
    /** A figure per request, right-aligned: µs for times (ms in the view), else with `digits` decimals. */
    const col = (v: unknown, width: number, digits = 0, scale = 1) => (per(v) * scale).toFixed(digits).padStart(width);
    for (const r of rows.slice(0, 25)) {
      const figures = [
        col(r.total_exec_time, 10, 0, 1000),
        col(r.total_plan_time, 8, 0, 1000),
        col(r.calls, 6, 2),
        col(r.rows, 5, 2),
        col(r.shared_blks_hit, 4, 1),
        col(r.shared_blks_dirtied, 8, 2),
        col(r.wal_records, 8, 1),
        col(r.wal_fpi, 4, 2),
        col(r.wal_bytes, 6),
      ];
      console.log(`${figures.join(" ")}  ${String(r.query).replace(/\s+/g, " ").slice(0, 150)}`);
    }
  } finally {
    await c.end();
  }
}

const per = Math.ceil(N / ROUNDS);
/** A measured phase's file name: "page views of signed-in browsers" → "page-signed-in", "evaluations" as it is. */
function slug(label: string): string {
  const words = label.split(" ");
  return words.length > 2 ? `${words[0]}-${words.at(-2)}` : (words[0] ?? "run");
}
if (SESSIONS) {
  const views = traffic.session("access");
  const logins = traffic.session("login");
  await server.evaluate(take({ next: views }, 500));
  const view = await measure(() => take({ next: views }, per), "page views of signed-in browsers");
  await server.evaluate(take({ next: logins }, 500));
  const login = await measure(() => take({ next: logins }, per), "logins of signed-in browsers");
  console.log(`page view ÷ login CPU: ${(login / view).toFixed(2)} × as many page views as logins per CPU second`);
  for (const action of ["login", "signup"]) {
    const next = traffic.newcomers(action);
    await server.evaluate(take({ next }, 200));
    await measure(() => take({ next }, per), `${action === "login" ? "logins" : "sign-ups"} of never-seen browsers`);
  }
} else {
  await server.evaluate(take(traffic, 1000));
  await measure(() => take(traffic, per), "evaluations");
}
const keep = process.argv.includes("--keep");
await server.close(keep);
if (keep) console.log(`store kept: ${PG ? database?.env.DATABASE_URL : server.file}`);
else await database?.drop();
