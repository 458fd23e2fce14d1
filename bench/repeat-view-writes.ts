// What a repeat page view of a known session no longer writes (docs/decisions/page-view-light-path.md), in SQLite CPU:
// its access record's insert and the familiarity upsert of its five known values (before) against the update of its
// session's recent access record (after), on a store the server migrated, holding 200,000 records and 4,000 users'
// ledgers. Statements alone, 50 to a transaction as the group commit batches them; best of 8 rounds of 2,000.
// The statements are those the store sends (store/access-records.ts, store/familiarity.ts), written out here to time them
// alone. Run: npx tsx bench/repeat-view-writes.ts
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { startInProcess } from "./in-process.js";

const server = await startInProcess("micro");
await server.close(true);
const db = new Database(server.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
const env = "env_1";
const USERS = 4000,
  DEVICES = 6000,
  RECORDS = 200_000;
const DIMS = ["ip", "network", "timezone", "language", "browser_family"];
const insAcc = db.prepare(
  "insert into access_records (id, environment_id, device_id, user_id, confidence, metadata, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
);
const updAcc = db.prepare("update access_records set updated_at = ? where id = ?");
const rows = DIMS.map(() => "(?, ?, ?, ?, ?, ?)").join(", ");
const upFam = db.prepare(
  `insert into familiarity (environment_id, user_id, dimension, value, first_seen, last_seen) values ${rows} on conflict (environment_id, user_id, dimension, value) do update set first_seen = case when excluded.first_seen < familiarity.first_seen then excluded.first_seen else familiarity.first_seen end, last_seen = case when excluded.last_seen > familiarity.last_seen then excluded.last_seen else familiarity.last_seen end where familiarity.last_seen < excluded.last_seen or familiarity.first_seen > excluded.first_seen`,
);
let t = Date.now() - 86_400_000;
let seq = 0;
db.transaction(() => {
  for (let i = 0; i < RECORDS; i++) insAcc.run(`acc_${seq++}`, env, `dev_${i % DEVICES}`, `usr_${i % USERS}`, 1, "{}", t + i, t + i);
  for (let u = 0; u < USERS; u++) upFam.run(...DIMS.flatMap((d) => [env, `usr_${u}`, d, `${d}-${u}`, t, t]));
})();
const ROUNDS = 8,
  OPS = 2000,
  BATCH = 50;
function measure(label: string, op: (i: number) => void) {
  const per: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage();
    for (let b = 0; b < OPS; b += BATCH)
      db.transaction(() => {
        for (let i = b; i < b + BATCH; i++) op(r * OPS + i);
      })();
    const c = process.cpuUsage(c0);
    per.push((c.user + c.system) / OPS);
  }
  console.log(`${label}: ${Math.min(...per).toFixed(1)} µs each at best (rounds ${per.map((x) => x.toFixed(0)).join(", ")})`);
  return Math.min(...per);
}
for (let pass = 0; pass < 2; pass++) {
  const a = measure("access record insert", (i) => {
    t += 10;
    insAcc.run(`acc_${seq++}`, env, `dev_${i % DEVICES}`, `usr_${i % USERS}`, 1, "{}", t, t);
  });
  const f = measure("familiarity upsert, 5 known values, later last_seen", (i) => {
    t += 10;
    const u = i % USERS;
    upFam.run(...DIMS.flatMap((d) => [env, `usr_${u}`, d, `${d}-${u}`, t, t]));
  });
  const u = measure("access record update (updated_at)", (i) => {
    t += 10;
    updAcc.run(t, `acc_${seq - 1 - ((i * 7919) % DEVICES)}`);
  });
  console.log(`saved per repeat view: ${(a + f - u).toFixed(1)} µs of SQLite CPU`);
}
db.close();
fs.rmSync(path.dirname(server.file), { recursive: true, force: true });
