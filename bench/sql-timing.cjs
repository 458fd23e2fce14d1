// Preloaded into the bench's profiled server (node --require): time spent inside SQLite per SQL text, written as
// JSON to $SQL_TIMING_FILE at exit. Wraps better-sqlite3's Statement methods; no effect unless preloaded. On PostgreSQL
// (inproc.ts --pg) pg's Client.query instead: each statement's time is then its round trip as the instance waits for it
// (the backend's work, the network, and any wait for the event loop), and its calls per request are the figure to read.
const path = require("node:path");
const fs = require("node:fs");
const SQLite = require(path.join(__dirname, "..", "node_modules", "better-sqlite3"));
const probe = new SQLite(":memory:");
const proto = Object.getPrototypeOf(probe.prepare("select 1"));
probe.close();
const stats = new Map();
const wrap = (target, method, sourceOf) => {
  const original = target[method];
  target[method] = function timed(...args) {
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const ns = Number(process.hrtime.bigint() - t0);
      const source = sourceOf(this, args);
      const s = stats.get(source) ?? { calls: 0, ns: 0, samples: [] };
      s.calls++;
      s.ns += ns;
      if (s.samples.length < 20000) s.samples.push(ns);
      stats.set(source, s);
    }
  };
};
for (const method of ["all", "get", "run", "iterate"]) wrap(proto, method, (st) => st.source);
// Transaction control (begin, commit, savepoints) goes through exec.
wrap(SQLite.prototype, "exec", (_db, args) => String(args[0]).replace(/\d+$/, "N"));
// PostgreSQL: a statement's time runs from its query() until its answer settles.
const pg = require(path.join(__dirname, "..", "node_modules", "pg"));
const pgQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function timedQuery(...args) {
  const out = pgQuery.apply(this, args);
  if (!out || typeof out.then !== "function") return out;
  const t0 = process.hrtime.bigint();
  const q = args[0];
  const text = (typeof q === "string" ? q : (q?.text ?? ""))
    .replace(/\s+/g, " ")
    .replace(/pg_advisory_xact_lock\(-?\d+\)/g, "pg_advisory_xact_lock(N)");
  const note = () => {
    const ns = Number(process.hrtime.bigint() - t0);
    const s = stats.get(text) ?? { calls: 0, ns: 0, samples: [] };
    s.calls++;
    s.ns += ns;
    if (s.samples.length < 20000) s.samples.push(ns);
    stats.set(text, s);
  };
  out.then(note, note);
  return out;
};
function dump() {
  if (stats.size === 0) return;
  const rows = [...stats.entries()]
    .map(([sql, s]) => {
      const sorted = s.samples.sort((a, b) => a - b);
      const at = (q) => +(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e3).toFixed(1);
      return {
        total_ms: +(s.ns / 1e6).toFixed(1),
        calls: s.calls,
        us_per_call: +(s.ns / s.calls / 1e3).toFixed(1),
        p50_us: at(0.5),
        p99_us: at(0.99),
        max_us: +(sorted[sorted.length - 1] / 1e3).toFixed(1),
        sql,
      };
    })
    .sort((a, b) => b.total_ms - a.total_ms);
  if (process.env.SQL_TIMING_FILE) fs.writeFileSync(process.env.SQL_TIMING_FILE, JSON.stringify(rows, null, 2));
}
process.on("exit", dump);
// bench/inproc.ts --sql-timing: the statements of one measured phase only (cleared before it, written after it).
globalThis.sqlTiming = {
  reset: () => stats.clear(),
  dump: (file) => {
    process.env.SQL_TIMING_FILE = file;
    dump();
    stats.clear();
  },
};
