// Store queries of two detection checks (docs/detection.md), self-contained beside the history repository (what a user was let
// in with, a country, a provider, a zone, a language, is the familiarity ledger's: store/familiarity.ts):
// - fingerprint churn: never-seen identifying fingerprints first presented from one IP, one network (/24 or /48) or
//   one provider's ASN within the hour and within the day, counted on the velocity counters (an atomic upsert per key and time bucket,
//   so concurrent evaluations on PostgreSQL each see the others, as the velocity checks do);
// - a fingerprint's latest places: where it was last evaluated, whoever it named (a browser's own travel, not an
//   account's: `browser_impossible_travel`).
import { createHash } from "node:crypto";
import { type Kysely, type QueryCreator, sql } from "kysely";
import type { Dialect } from "./db.js";
import { JoinableRead, joinable, joinRead } from "./joined-reads.js";
import { prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { VelocityTables } from "./tables/velocity.js";
import { Repository, type Transactions } from "./transactions.js";

export interface ChurnKeys {
  ip?: string;
  network?: string;
  /** A cloud's, a VPN's or a proxy provider's ASN (an ISP's or a carrier's is full of strangers' new browsers). */
  provider?: number;
}

export interface ChurnCounts {
  ip: number;
  network: number;
  provider: number;
}

/** Churn over two windows of one counter: a fast run shows within the hour, a low and slow one within the day. */
export interface Churn {
  hour: ChurnCounts;
  day: ChurnCounts;
}

export interface ChurnWindows {
  hour: number;
  day: number;
}

/** Buckets per hour window; the day window sums the same buckets over its length. */
const BUCKETS = 12;

function churnKey(kind: string, env: string, value: string, at: number, windows: ChurnWindows) {
  const width = Math.max(1, Math.floor(windows.hour / BUCKETS));
  const bucket = Math.floor(at / width);
  const dayBuckets = Math.max(BUCKETS, Math.ceil(windows.day / width));
  const key = `n${kind}:${createHash("sha256").update(env).update("\0").update(value).digest("base64url").slice(0, 27)}`;
  return { key, bucket, hourFrom: bucket - BUCKETS + 1, dayFrom: bucket - dayBuckets + 1, expires: (bucket + dayBuckets) * width };
}

/** The values of the churn's statements: up to three keys (IP, network, provider), each with its buckets. */
interface ChurnParams {
  hourFrom: number;
  k0: string;
  f0: number;
  b0: number;
  e0: number;
  k1: string;
  f1: number;
  b1: number;
  e1: number;
  k2: string;
  f2: number;
  b2: number;
  e2: number;
}

const churnSlots = (p: ChurnParams, n: number) =>
  [
    { key: p.k0, from: p.f0, bucket: p.b0, expires: p.e0 },
    { key: p.k1, from: p.f1, bucket: p.b1, expires: p.e1 },
    { key: p.k2, from: p.f2, bucket: p.b2, expires: p.e2 },
  ].slice(0, n);

/**
 * The churn's read and its counting upsert, compiled once per number of keys (prepared.ts; on PostgreSQL named
 * statements): built with Kysely on every call, the read was the hot path's one query compiled per evaluation.
 */
const churnRead = [1, 2, 3].map((n) =>
  joinable(20, (kdb, p: ChurnParams) =>
    kdb
      .withTables<VelocityTables>()
      .selectFrom("velocity_counters")
      .select([
        "key",
        sql<number>`sum(count)`.as("day"),
        sql<number>`sum(case when bucket >= ${p.hourFrom} then count else 0 end)`.as("hour"),
      ])
      .where((eb) =>
        eb.or(churnSlots(p, n).map((e) => eb.and([eb("key", "=", e.key), eb("bucket", ">=", e.from), eb("bucket", "<=", e.bucket)]))),
      )
      .groupBy("key"),
  ),
);
/** Adds one to each of these counters' buckets (a new bucket starts at one). */
const bump = (kdb: Kysely<Database>, slots: Array<{ key: string; bucket: number; expires: number }>) =>
  kdb
    .withTables<VelocityTables>()
    .insertInto("velocity_counters")
    .values(slots.map((e) => ({ key: e.key, bucket: e.bucket, count: 1, expires_at: e.expires })))
    .onConflict((oc) => oc.columns(["key", "bucket"]).doUpdateSet((eb) => ({ count: eb("velocity_counters.count", "+", 1) })));

/**
 * New identifying fingerprints seen from each key within each window before `at`, this request's included when
 * `isNew`: it is counted first (one upsert per key), then the buckets are summed, the hour's and the day's in one scan.
 */
async function fingerprintChurn(
  db: Kysely<Database>,
  dialect: Dialect,
  env: string,
  keys: ChurnKeys,
  isNew: boolean,
  at: number,
  windows: ChurnWindows,
): Promise<Churn> {
  const entries = (
    [
      ["ip", keys.ip],
      ["network", keys.network],
      ["provider", keys.provider === undefined ? undefined : String(keys.provider)],
    ] as const
  )
    .filter((e): e is readonly ["ip" | "network" | "provider", string] => !!e[1])
    .map(([name, value]) => ({ name, ...churnKey(name[0] as string, env, value, at, windows) }));
  const out: Churn = { hour: { ip: 0, network: 0, provider: 0 }, day: { ip: 0, network: 0, provider: 0 } };
  if (entries.length === 0) return out;
  // Every key's hour starts at the same bucket (one clock, one width).
  const rows = await countThenRead(db, dialect, entries, isNew ? entries.length : 0, entries[0]?.hourFrom ?? 0);
  const byKey = new Map(rows.map((r) => [r.key, r]));
  for (const e of entries) {
    const r = byKey.get(e.key);
    out.hour[e.name] = Number(r?.hour ?? 0);
    out.day[e.name] = Number(r?.day ?? 0);
  }
  return out;
}

/**
 * Counts of a sign-up farm (docs/detection.md, "Sign-up farms"), one counter per named value (its day's buckets on the
 * velocity counters, as churn's): each value named in `counted` is counted once for this request, then every
 * named value's day sum is read, this request's included. The caller names what it counts (a build on an address, the
 * same build with this audio output, a fingerprint's sign-ups, the same on this network), so differences of two sums
 * say how many of the day's others differed. The names in `longer` are summed over its windows instead (a day-wide bucket
 * over a month: whether real browsers present an audio output or a canvas).
 */
async function dayCounts(
  db: Kysely<Database>,
  dialect: Dialect,
  env: string,
  values: Record<string, string>,
  counted: readonly string[],
  at: number,
  windows: ChurnWindows,
  longer?: { names: readonly string[]; windows: ChurnWindows },
): Promise<Record<string, number>> {
  const entries = Object.entries(values).map(([name, value]) => ({
    name,
    ...churnKey("s", env, value, at, longer?.names.includes(name) ? longer.windows : windows),
  }));
  const out: Record<string, number> = {};
  if (entries.length === 0) return out;
  // The counted first: countThenRead counts a prefix.
  const counting = entries.filter((e) => counted.includes(e.name));
  const rest = entries.filter((e) => !counted.includes(e.name));
  const rows = await countThenRead(db, dialect, [...counting, ...rest], counting.length, undefined);
  const byKey = new Map(rows.map((r) => [r.key, Number(r.day ?? 0)]));
  for (const e of entries) out[e.name] = byKey.get(e.key) ?? 0;
  return out;
}

/** The values of a day count's statements: keys `k<i>` with their buckets (`f<i>` from, `b<i>` now, `e<i>` expiry). */
type SlotParams = Record<string, string | number>;

function slotParams(entries: ReadonlyArray<{ key: string; dayFrom: number; bucket: number; expires: number }>): SlotParams {
  const p: SlotParams = {};
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    p[`k${i}`] = e.key;
    p[`f${i}`] = e.dayFrom;
    p[`b${i}`] = e.bucket;
    p[`e${i}`] = e.expires;
  }
  return p;
}

const slots = (p: SlotParams, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    key: p[`k${i}`] as string,
    from: p[`f${i}`] as number,
    bucket: p[`b${i}`] as number,
    expires: p[`e${i}`] as number,
  }));

/**
 * A day count's read and its counting upsert, compiled once per number of keys (prepared.ts; on PostgreSQL named
 * statements) rather than built by Kysely on every sign-up: a farm asks 1 to 20 keys, so twenty texts at most.
 */
const dayReads = new Map<number, ReturnType<typeof dayReadOf>>();
const dayUpserts = new Map<number, ReturnType<typeof dayCountOf>>();
const dayReadOf = (n: number) =>
  joinable(21, (kdb, p: SlotParams) =>
    kdb
      .withTables<VelocityTables>()
      .selectFrom("velocity_counters")
      .select(["key", sql<number>`sum(count)`.as("day")])
      .where((eb) =>
        eb.or(slots(p, n).map((e) => eb.and([eb("key", "=", e.key), eb("bucket", ">=", e.from), eb("bucket", "<=", e.bucket)]))),
      )
      .groupBy("key"),
  );
const dayCountOf = (n: number) => prepared((kdb, p: SlotParams) => bump(kdb, slots(p, n)));
function dayRead(n: number) {
  const q = dayReads.get(n) ?? dayReadOf(n);
  dayReads.set(n, q);
  return q;
}
function dayCount(n: number) {
  const q = dayUpserts.get(n) ?? dayCountOf(n);
  dayUpserts.set(n, q);
  return q;
}

/**
 * PostgreSQL: the counting upsert of the first `counted` keys and the day sums of all `n` keys as one statement, the
 * upsert a data-modifying CTE (one round trip where the embedded store makes two calls). The read's snapshot is taken
 * before the upsert: it sums each key's buckets up to `u<i>` (a counted key's stop before its current bucket) and the
 * upsert answers a counted key's current bucket as it left it, this request's count included and any other committed
 * before it, as the read after the upsert saw it (the current bucket is within the hour). With `hourFrom`, the hour's
 * sums too. Compiled once per shape (a farm asks 1 to 20 keys, the churn 1 to 3). Joined with the evaluation's other
 * reads asked at the same moment (store/joined-reads.ts), it is a CTE and a read of that statement: the same snapshot
 * reasoning, over keys ("n…") no other part of it counts.
 */
const countedReads = new Map<string, ReturnType<typeof countedReadOf>>();
const countedReadOf = (counted: number, n: number, hour: boolean) =>
  // Joined with the evaluation's other reads on PostgreSQL (store/joined-reads.ts), after them and after the velocity
  // counters' upsert: the churn's (with the hour) before the farm's.
  new JoinableRead(hour ? 60 : 70, (_db, p: SlotParams, name) => {
    const bumped = name("bumped");
    return {
      ctes: [
        [
          bumped,
          (d: QueryCreator<VelocityTables>) =>
            d
              .insertInto("velocity_counters")
              .values(slots(p, counted).map((e) => ({ key: e.key, bucket: e.bucket, count: 1, expires_at: e.expires })))
              .onConflict((oc) => oc.columns(["key", "bucket"]).doUpdateSet((eb) => ({ count: eb("velocity_counters.count", "+", 1) })))
              .returning(["key", "bucket", "count"]),
        ],
      ],
      read: (qc: QueryCreator<VelocityTables & Record<string, { key: string; bucket: number; count: number }>>) =>
        qc
          .selectFrom((qb) =>
            qb
              .selectFrom("velocity_counters")
              .select(["key", "bucket", "count"])
              .where((eb) =>
                eb.or(
                  slots(p, n).map((e, i) =>
                    eb.and([eb("key", "=", e.key), eb("bucket", ">=", e.from), eb("bucket", "<=", p[`u${i}`] as number)]),
                  ),
                ),
              )
              .unionAll(qb.selectFrom(bumped).select(["key", "bucket", "count"]))
              .as("c"),
          )
          .select([
            "c.key",
            sql<number>`sum(c.count)`.as("day"),
            hour ? sql<number>`sum(case when c.bucket >= ${p.hourFrom} then c.count else 0 end)`.as("hour") : sql<null>`null`.as("hour"),
          ])
          .groupBy("c.key") as never,
    };
  });
function countedRead(counted: number, n: number, hour: boolean) {
  const shape = `${counted}/${n}${hour ? "h" : ""}`;
  const q = countedReads.get(shape) ?? countedReadOf(counted, n, hour);
  countedReads.set(shape, q);
  return q;
}

/**
 * Counts the first `counted` entries and reads every entry's sums, this request's counts included: one statement on
 * PostgreSQL (countedRead), the upsert then the read on the embedded store.
 */
async function countThenRead(
  db: Kysely<Database>,
  dialect: Dialect,
  entries: ReadonlyArray<{ key: string; dayFrom: number; bucket: number; expires: number }>,
  counted: number,
  hourFrom: number | undefined,
): Promise<Array<{ key: string; day: number; hour: number | null }>> {
  const p: SlotParams = slotParams(entries);
  if (hourFrom !== undefined) p.hourFrom = hourFrom;
  if (dialect === "postgres" && counted > 0) {
    for (let i = 0; i < entries.length; i++) p[`u${i}`] = entries[i]!.bucket - (i < counted ? 1 : 0);
    return joinRead(db, dialect, countedRead(counted, entries.length, hourFrom !== undefined), p) as Promise<
      Array<{ key: string; day: number; hour: number | null }>
    >;
  }
  if (counted > 0) await dayCount(counted).execute(db, slotParams(entries.slice(0, counted)));
  if (hourFrom !== undefined) {
    const rows = await joinRead(db, dialect, churnRead[entries.length - 1]!, p as unknown as ChurnParams);
    return rows.map((r) => ({ key: r.key, day: Number(r.day ?? 0), hour: Number(r.hour ?? 0) }));
  }
  const rows = await joinRead(db, dialect, dayRead(entries.length), p);
  return rows.map((r) => ({ key: r.key, day: Number(r.day ?? 0), hour: null }));
}

/** Where a browser was: an address at a time (its coordinates when the evaluation stored them). */
export interface BrowserPlace {
  ip: string;
  at: number;
  coordinates?: { lat: number; lon: number };
}

const placesOfFingerprint = joinable(11, (db, p: { env: string; fingerprint: string; since: number; limit: number }) =>
  db
    .selectFrom("evaluations")
    .select(["ip", "latitude", "longitude", "created_at"])
    .where("environment_id", "=", p.env)
    .where("fingerprint_id", "=", p.fingerprint)
    .where("created_at", ">=", p.since)
    .where("latitude", "is not", null)
    .where("ip", "is not", null)
    .orderBy("created_at", "desc")
    .limit(p.limit),
);

/**
 * The fingerprint's latest evaluations with a place since `since`, newest first (served by the evaluations' index on
 * fingerprint and time). Every evaluation counts, whoever it named and whatever its verdict: this is where the browser
 * was, not where an account was let in.
 */
async function fingerprintPlaces(
  db: Kysely<Database>,
  dialect: Dialect,
  env: string,
  fingerprint: string,
  since: number,
): Promise<BrowserPlace[]> {
  const rows = await joinRead(db, dialect, placesOfFingerprint, { env, fingerprint, since, limit: 5 });
  return rows.map((r) => ({
    ip: String(r.ip),
    at: Number(r.created_at),
    coordinates: { lat: Number(r.latitude), lon: Number(r.longitude) },
  }));
}

/** The detection queries above on the open transaction (store/transactions.ts), as every repository runs. */
export class DetectionRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
  ) {
    super(transactions);
  }

  fingerprintChurn(env: string, keys: ChurnKeys, isNew: boolean, at: number, windows: ChurnWindows): Promise<Churn> {
    return fingerprintChurn(this.db, this.dialect, env, keys, isNew, at, windows);
  }

  dayCounts(
    env: string,
    values: Record<string, string>,
    counted: readonly string[],
    at: number,
    windows: ChurnWindows,
    longer?: { names: readonly string[]; windows: ChurnWindows },
  ): Promise<Record<string, number>> {
    return dayCounts(this.db, this.dialect, env, values, counted, at, windows, longer);
  }

  fingerprintPlaces(env: string, fingerprint: string, since: number): Promise<BrowserPlace[]> {
    return fingerprintPlaces(this.db, this.dialect, env, fingerprint, since);
  }
}
