// Which cores the bench's processes run on (docs/scaling.md "How the bench shares the cores"). A figure "per instance"
// means one server process on one core: in production each instance gets its cores and PostgreSQL a machine of its
// own, while here the server, the load generator and PostgreSQL share two cores, and the scheduler would give a
// PostgreSQL run's server whatever the database left. So on a machine of two or more cores the event loop of every
// server under test (the embedded store's, PostgreSQL's and the bare Fastify route) runs on core 0 alone, and the load
// generator (this process) and PostgreSQL's processes on the others. `--no-pin` leaves them all to the scheduler.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

const CORES = os.cpus().length;
const LAST = CORES - 1;

/** Whether the bench pins processes: two cores or more, taskset present, and not turned off. */
export const PINNED = CORES >= 2 && !process.argv.includes("--no-pin") && spawnSync("taskset", ["-V"], { encoding: "utf8" }).status === 0;

/** How the cores were shared, for the printed header and the results file. */
export const CORE_PLAN = PINNED
  ? `event loop under test on core 0; load generator and PostgreSQL on core${LAST > 1 ? `s 1-${LAST}` : " 1"}`
  : "no pinning: every process on any core";

/** `threads`: every thread of the process, else its main thread alone (the threads it starts later inherit it). */
function taskset(pid: number, cores: string, threads: "all" | "main" = "all"): void {
  spawnSync("taskset", [...(threads === "all" ? ["-a"] : []), "-cp", cores, String(pid)], { stdio: "ignore" });
}

/** Every running PostgreSQL process (postmaster, backends, background workers) by pid. */
function postgresPids(): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/comm`, "utf8").trim() === "postgres") out.push(Number(d));
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

/**
 * Puts a server's event loop (its main thread) on core 0 alone. The threads it already runs stay free: V8's garbage
 * collection helpers, the embedded store's checkpointing thread, libuv's pool. Pinned with it, they took the event
 * loop's core (docs/scaling.md has the figures).
 */
export function pinServer(pid: number | undefined): void {
  if (PINNED && pid) taskset(pid, "0", "main");
}

/** Puts this process (the load generator) on the cores the servers under test do not use. */
export function pinLoadGenerator(): void {
  if (PINNED) taskset(process.pid, `1-${LAST}`);
}

/**
 * Runs `fn` with PostgreSQL's processes off core 0 (backends forked meanwhile inherit the postmaster's cores), then
 * gives every PostgreSQL process all the cores again: the server is shared with whatever else uses it.
 */
export async function withPostgresOffCore0<T>(fn: () => Promise<T>): Promise<T> {
  if (!PINNED) return fn();
  for (const pid of postgresPids()) taskset(pid, `1-${LAST}`);
  try {
    return await fn();
  } finally {
    for (const pid of postgresPids()) taskset(pid, `0-${LAST}`);
  }
}
