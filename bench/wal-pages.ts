// What each kind of client evaluation writes to the embedded store's WAL, by b-tree (table or index): the real app in
// process (bench/in-process.ts) on a fresh SQLite file, the bench's pool of returning browsers seen once and their logins
// consumed (as inproc.ts --sessions), then N evaluations of each kind: signed-in browsers' page views (`access`), their
// logins, never-seen browsers' logins and sign-ups. A read transaction held by this script from the first measured
// request keeps the WAL from starting over (the checkpointing thread still copies frames, the file keeps them), so the
// frames each phase appended are read back from the WAL file: a 32-byte header, then per frame a 24-byte header (page
// number, the database size after a commit or 0, the header's salts) and the page. Pages are named with SQLite's
// `dbstat` at the end (a page keeps its b-tree: nothing is vacuumed meanwhile).
// `--concurrency=C` requests in flight (default 1: each evaluation has its batch of the group commit to itself, as in a
// paced run at 526/s, whose 32 frames per evaluation are this bench's mixed traffic one to a batch); the commits per
// evaluation are printed.
// `--rate=R`: R requests a second instead, each sent when due (in process; 526/s saturated the shared 2-core machine,
// batches of 30 to 100 evaluations, so the rate measures batching only on a machine with room to spare).
// The last phase is the bench's mixed traffic (bench/traffic.ts), as a paced run sends it.
// Run: npx tsx bench/wal-pages.ts [evaluations per kind=400] [--concurrency=1 | --rate=R] [--browsers=6000] [--json=file]
// [--keep]
import fs from "node:fs";
import Database from "better-sqlite3";
import { startInProcess, take } from "./in-process.js";
import { type ClientRequest, DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 400);
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const CONCURRENCY = Number(flag("concurrency") ?? 1);
/** Requests a second, sent on a clock whatever the answers (an open loop, as bench/paced.ts), instead of CONCURRENCY. */
const RATE = flag("rate") === undefined ? undefined : Number(flag("rate"));
const browsers = Number(flag("browsers") ?? DEFAULT_TRAFFIC.browsers);
const JSON_OUT = flag("json");

const server = await startInProcess("wal-pages");
const traffic = new Traffic(server.clientId, { ...DEFAULT_TRAFFIC, browsers, users: Math.ceil(browsers / 1.5) });
const poolIds: string[] = [];
await server.evaluate(traffic.pool(), undefined, 50, poolIds);
await server.consume(poolIds);

const PAGE = 4096;
const FRAME = 24 + PAGE;
const wal = `${server.file}-wal`;

/** The WAL's frames of the current generation (salts of its header): page number and whether it ends a commit. */
function walFrames(): { page: number; commit: boolean }[] {
  const buf = fs.readFileSync(wal);
  const salt1 = buf.readUInt32BE(16);
  const salt2 = buf.readUInt32BE(20);
  const out: { page: number; commit: boolean }[] = [];
  for (let at = 32; at + FRAME <= buf.length; at += FRAME) {
    if (buf.readUInt32BE(at + 8) !== salt1 || buf.readUInt32BE(at + 12) !== salt2) break;
    out.push({ page: buf.readUInt32BE(at), commit: buf.readUInt32BE(at + 4) !== 0 });
  }
  return out;
}

// Held from here on: the checkpoint's RESTART waits for every reader, so the WAL is never started over under us.
const pin = new Database(server.file, { readonly: true });
pin.exec("begin");
pin.prepare("select count(*) from sqlite_master").get();

interface Phase {
  label: string;
  requests: number;
  statuses: Record<number, number>;
  pages: number[];
  commits: number;
}
const phases: Phase[] = [];
/** Sends the requests RATE a second, each when due, without waiting for the earlier ones' answers. */
async function paced(requests: Iterable<ClientRequest>, statuses: Map<number, number> | undefined, rate: number): Promise<number> {
  const start = performance.now();
  const inflight: Promise<number>[] = [];
  for (const request of requests) {
    const wait = start + (inflight.length * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(server.evaluate([request], statuses, 1));
  }
  return (await Promise.all(inflight)).length;
}
const send = (requests: Iterable<ClientRequest>, statuses?: Map<number, number>) =>
  RATE ? paced(requests, statuses, RATE) : server.evaluate(requests, statuses, CONCURRENCY);

async function phase(label: string, next: () => ClientRequest) {
  await send(take({ next }, Math.min(200, N)));
  const before = walFrames().length;
  const statuses = new Map<number, number>();
  const n = await send(take({ next }, N), statuses);
  await new Promise((r) => setImmediate(r));
  const frames = walFrames().slice(before);
  phases.push({
    label,
    requests: n,
    statuses: Object.fromEntries(statuses),
    pages: frames.map((f) => f.page),
    commits: frames.filter((f) => f.commit).length,
  });
}

await phase("page views (access) of signed-in browsers", traffic.session("access"));
await phase("logins of signed-in (returning) browsers", traffic.session("login"));
await phase("logins of never-seen browsers", traffic.newcomers("login"));
await phase("sign-ups of never-seen browsers", traffic.newcomers("signup"));
await phase("the bench's mixed traffic (bench/traffic.ts: returning and new browsers, every action)", () => traffic.next());

pin.exec("commit");
pin.close();
await server.close(true);
const db = new Database(server.file, { readonly: true });
const owner = new Map<number, { name: string; leaf: boolean }>();
for (const r of db.prepare("select name, pageno, pagetype from dbstat").all() as { name: string; pageno: number; pagetype: string }[])
  owner.set(r.pageno, { name: r.pagetype === "overflow" ? `${r.name} (overflow)` : r.name, leaf: r.pagetype !== "internal" });
const freelist = db.pragma("freelist_count", { simple: true });
db.close();

const report = phases.map((p) => {
  const by = new Map<string, { frames: number; interior: number }>();
  for (const page of p.pages) {
    const o = owner.get(page) ?? { name: "(free or other)", leaf: true };
    const b = by.get(o.name) ?? { frames: 0, interior: 0 };
    b.frames++;
    if (!o.leaf) b.interior++;
    by.set(o.name, b);
  }
  const btrees = [...by]
    .sort((a, b) => b[1].frames - a[1].frames)
    .map(([name, b]) => ({ name, per: b.frames / p.requests, interior: b.interior / p.requests }));
  return {
    label: p.label,
    requests: p.requests,
    statuses: p.statuses,
    frames_per_evaluation: p.pages.length / p.requests,
    commits_per_evaluation: p.commits / p.requests,
    btrees,
  };
});
for (const r of report) {
  console.log(
    `\n${r.label}: ${r.requests} requests ${JSON.stringify(r.statuses)}, ${RATE ? `${RATE}/s` : `concurrency ${CONCURRENCY}`}: ` +
      `${r.frames_per_evaluation.toFixed(1)} WAL frames each, ${r.commits_per_evaluation.toFixed(2)} commits each`,
  );
  console.log("frames (of them interior pages) per evaluation, by b-tree:");
  for (const b of r.btrees)
    if (b.per >= 0.05) console.log(`${b.per.toFixed(2).padStart(7)} ${b.interior.toFixed(2).padStart(6)}  ${b.name}`);
}
console.log(`\n(freelist pages at the end: ${freelist})`);
if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ concurrency: CONCURRENCY, rate: RATE, report }, null, 2));
if (process.argv.includes("--keep")) console.log(`store kept: ${server.file}`);
else fs.rmSync(server.file.replace(/\/tessera\.db$/, ""), { recursive: true, force: true });
