// Migration 37 (docs/detection.md, "Per-IP means per-network for IPv6"): detection's per-IP counts key an IPv6 client
// by its /64, as the send caps and rate limits do. A subscriber is given a /64 at least and a machine may take any
// address in it (privacy addresses change daily), so counting raw IPv6 addresses let one client be 2^64 clients.
// - `evaluations.ip_key`: the evaluation's per-IP key (server/src/geo/ip.ts, perIpKey): the IPv4 address, an IPv6
//   address's /64 (`2001:db8:0:1::/64`), an IPv4-mapped one as its IPv4. `ip` keeps the address the client came from
//   (the API and the console show it). Filled here for the stored rows.
// - `evaluations_env_ip_key_time_users` (environment, key, time, user, fingerprint) replaces
//   `evaluations_env_ip_time_users` (migration 34): the velocity count of an IP, the users of an IP and the confirmed
//   users at an IP read the key; the console's search by address reads its key's range and then the address.
// - `login_attempts.ip` and the familiarity ledger's `ip` values hold the key from now on: their IPv6 addresses are
//   rewritten to their /64 (the ledger's rows of one /64 merged into one, first and last seen kept).
// The key is computed as the live code computes it, copied below (a migration never imports live code). An address
// without a colon is an IPv4 address as a socket writes it, its own key.
import { isIPv6 } from "node:net";
import { type Kysely, sql } from "kysely";
import { seedPlannerStatistics } from "./007-sqlite-planner-hints.js";

/** The eight 16-bit groups of an IPv6 address (zone id dropped, a trailing dotted quad as two groups); else undefined. */
function groupsOf(text: string): number[] | undefined {
  const ip = text.split("%")[0] as string;
  if (!isIPv6(ip)) return undefined;
  let body = ip;
  const tail: number[] = [];
  const dot = body.lastIndexOf(".");
  if (dot >= 0) {
    const colon = body.lastIndexOf(":");
    const octets = body
      .slice(colon + 1)
      .split(".")
      .map(Number);
    tail.push(((octets[0] as number) << 8) | (octets[1] as number), ((octets[2] as number) << 8) | (octets[3] as number));
    body = body.slice(0, colon + 1);
    if (body.endsWith(":") && !body.endsWith("::")) body = body.slice(0, -1);
  }
  const hex = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const [head, rest] = body.includes("::") ? (body.split("::") as [string, string]) : [body, undefined];
  const left = hex(head);
  const right = rest === undefined ? [] : hex(rest);
  const fill = 8 - tail.length - left.length - right.length;
  const groups = rest === undefined ? [...left, ...tail] : [...left, ...new Array<number>(fill).fill(0), ...right, ...tail];
  return groups.length === 8 ? groups : undefined;
}

/** The per-IP key of an address, as server/src/geo/ip.ts (perIpKey) computed it when this migration shipped. */
export function perIpKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  const g = groupsOf(ip);
  if (!g) return ip;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff)
    return [(g[6] as number) >> 8, (g[6] as number) & 255, (g[7] as number) >> 8, (g[7] as number) & 255].join(".");
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/** Rows with a colon in `column`, one (environment, value) at a time: each rewritten through the index on both. */
async function rewriteAddresses(db: Kysely<unknown>, table: "evaluations" | "login_attempts", from: "ip", to: "ip" | "ip_key") {
  const pairs = await sql<{ environment_id: string; value: string }>`
    select distinct environment_id, ${sql.ref(from)} as value from ${sql.table(table)} where ${sql.ref(from)} like '%:%'`.execute(db);
  for (const p of pairs.rows) {
    const key = perIpKey(p.value);
    if (to === from && key === p.value) continue;
    await sql`update ${sql.table(table)} set ${sql.ref(to)} = ${key}
      where environment_id = ${p.environment_id} and ${sql.ref(from)} = ${p.value}`.execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").addColumn("ip_key", "text").execute();
  await sql`update evaluations set ip_key = ip where ip is not null and ip not like '%:%'`.execute(db);
  await rewriteAddresses(db, "evaluations", "ip", "ip_key");
  await db.schema
    .createIndex("evaluations_env_ip_key_time_users")
    .on("evaluations")
    .columns(["environment_id", "ip_key", "created_at", "user_id", "fingerprint_id"])
    .execute();
  await db.schema.dropIndex("evaluations_env_ip_time_users").execute();

  await rewriteAddresses(db, "login_attempts", "ip", "ip");

  // The ledger's IPv6 addresses become their /64: one row per user and /64, seen from the first to the last of them.
  const rows = await sql<{ environment_id: string; user_id: string; value: string; first_seen: number; last_seen: number }>`
    select environment_id, user_id, value, first_seen, last_seen from familiarity
    where dimension = 'ip' and value like '%:%'`.execute(db);
  const merged = new Map<string, { environment_id: string; user_id: string; value: string; first_seen: number; last_seen: number }>();
  for (const r of rows.rows) {
    const value = perIpKey(r.value);
    if (value === r.value) continue;
    await sql`delete from familiarity where environment_id = ${r.environment_id} and user_id = ${r.user_id}
      and dimension = 'ip' and value = ${r.value}`.execute(db);
    const id = `${r.environment_id}\0${r.user_id}\0${value}`;
    const m = merged.get(id);
    const first = Number(r.first_seen);
    const last = Number(r.last_seen);
    if (m) {
      m.first_seen = Math.min(m.first_seen, first);
      m.last_seen = Math.max(m.last_seen, last);
    } else merged.set(id, { environment_id: r.environment_id, user_id: r.user_id, value, first_seen: first, last_seen: last });
  }
  for (const m of merged.values()) {
    // A /64 written already (a key recorded by a newer evaluation) keeps the wider span.
    await sql`insert into familiarity (environment_id, user_id, dimension, value, first_seen, last_seen)
      values (${m.environment_id}, ${m.user_id}, 'ip', ${m.value}, ${m.first_seen}, ${m.last_seen})
      on conflict (environment_id, user_id, dimension, value) do update set
        first_seen = case when familiarity.first_seen < excluded.first_seen then familiarity.first_seen else excluded.first_seen end,
        last_seen = case when familiarity.last_seen > excluded.last_seen then familiarity.last_seen else excluded.last_seen end`.execute(
      db,
    );
  }
  // Embedded store: the new index's planner statistics until PRAGMA optimize measures them (as migration 007's).
  await seedPlannerStatistics(db, ["evaluations_env_ip_key_time_users"]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The rewritten login attempts and ledger values stay /64s: an older release reads them as addresses never seen.
  await db.schema
    .createIndex("evaluations_env_ip_time_users")
    .on("evaluations")
    .columns(["environment_id", "ip", "created_at", "user_id", "fingerprint_id"])
    .execute();
  await db.schema.dropIndex("evaluations_env_ip_key_time_users").execute();
  await db.schema.alterTable("evaluations").dropColumn("ip_key").execute();
}
