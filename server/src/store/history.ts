// Repository of the behavioural history the checks read (SPEC.md 6): recent evaluations of a user, velocity counts
// per user, IP and fingerprint (on PostgreSQL atomic bucketed counters, so a burst sees itself), the user's trusted
// places and networks (issue 15), devices per user and users per IP (read with the fingerprint's users,
// store/user-lists.ts; per visitor token: DevicesRepo.tokenUsers), repeated content. Every query is bounded and served
// by an index, and all of it lives in the shared store, so several instances agree on velocity and device counts.
import { createHash } from "node:crypto";
import { type Compilable, type ExpressionBuilder, type Kysely, sql } from "kysely";
import { newId } from "../ids.js";
import type { Dialect } from "./db.js";
import {
  type AttemptCounts,
  type AttemptKeys,
  type AttemptParams,
  attemptCounts,
  attemptCountsOf,
  attemptKeysPresent,
  attemptParams,
} from "./login-attempts.js";
import { insertRow, prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { VelocityTables } from "./tables/velocity.js";
import { Repository, type Transactions } from "./transactions.js";
import type { UserDevice, UserLists } from "./user-lists.js";

export interface RecentEvaluation {
  ip: string | null;
  country_code: string | null;
  latitude: number | null;
  longitude: number | null;
  created_at: number;
  device_id: string | null;
  fingerprint_id: string | null;
}

/** A trusted evaluation of a user that has a location (issue 15): where the user has really been. */
export interface TrustedPlace {
  ip: string | null;
  country_code: string | null;
  latitude: number;
  longitude: number;
  network: string | null;
  created_at: number;
}

export type { UserDevice } from "./user-lists.js";

/**
 * Velocity windows are counted in this many buckets each (a user's hour in 5-minute buckets, an IP's 10 minutes in
 * 50-second ones). A count covers the current bucket and the ones before it that lie wholly inside the window: between
 * 11/12 of the window and all of it, never older evaluations.
 */
const BUCKETS_PER_WINDOW = 12;

type VelocityKind = "u" | "i" | "f";

interface VelocityKey {
  kind: VelocityKind;
  key: string;
  bucket: number;
  /** The oldest bucket still inside the window. */
  from: number;
  expires: number;
}

/** A counter's key: the environment and value hashed, so the table holds no user id or IP in clear. */
function velocityKey(kind: VelocityKind, env: string, value: string, at: number, windowMs: number): VelocityKey {
  const width = Math.max(1, Math.floor(windowMs / BUCKETS_PER_WINDOW));
  const bucket = Math.floor(at / width);
  const key = `${kind}:${createHash("sha256").update(env).update("\0").update(value).digest("base64url").slice(0, 27)}`;
  return { kind, key, bucket, from: bucket - BUCKETS_PER_WINDOW + 1, expires: (bucket + BUCKETS_PER_WINDOW) * width };
}

// ---- trusted history (issue 15) ----------------------------------------------------------------------------------------
// Travel and network memory read only the evaluations that were the user's own. The client id is public, so a browser
// naming a user proves nothing: an evaluation counts when it is confirmed (migration 23): consumed by the customer's
// backend while it let the user in, sent by the backend or with a signed user id, its challenge passed, or let in on a
// device the user had signed in on (device_confirmations: the pages a signed-in laptop opens; decided when it is
// written, so reading it is one column). An attacker's attempts, denied, unanswered, or let in with a wrong password or
// on a page that asks for none, are stored like any evaluation, but they never become the place the owner is measured
// from, nor a network, country or zone the account is "familiar" with. A passed challenge confirms its evaluation in
// the verify's own transaction (challenges/service.ts), and migration 23 confirmed those passed before it, so the
// column alone says it.

/** Verdicts that let the user in. */
export const ADMITTED = ["allow", "restrict"];

/** The user's trusted evaluations, as the history checks here and the detection queries (detection.ts) read them. */
export function trusted(eb: ExpressionBuilder<Database, "evaluations">) {
  return eb("evaluations.confirmed", "=", 1);
}

/**
 * The user signed in on the device (a confirmed evaluation there): what it lets the user do is theirs from now on. When
 * the evaluation's request only recognised the device by its fingerprint (`pending_token`, migration 27: cleared
 * storage, a private window), the browser that was vouched for is the device's from now on: the device takes that
 * token and keeps the one it had as its previous token (the normal windows after a private one come back with it).
 * Never on the request itself: anyone can present the user's components (docs/identity.md, "Recognition and trust").
 */
export async function confirmDevice(
  db: Kysely<Database>,
  row: { environment_id: string; device_id: string | null; user_id: string | null; pending_token?: string | null },
  at: number,
): Promise<void> {
  if (!row.device_id || !row.user_id) return;
  await insertRow(
    db,
    "device_confirmations",
    { environment_id: row.environment_id, device_id: row.device_id, user_id: row.user_id, created_at: at },
    ["environment_id", "device_id", "user_id"],
  );
  const token = row.pending_token;
  if (!token) return;
  await db
    .updateTable("devices")
    .set((eb) => ({ previous_token: eb.ref("visitor_token"), visitor_token: token, updated_at: at }))
    .where("environment_id", "=", row.environment_id)
    .where("id", "=", row.device_id)
    .where("user_id", "=", row.user_id)
    .where((eb) => eb.or([eb("visitor_token", "is", null), eb("visitor_token", "!=", token)]))
    .execute();
}

/**
 * The user's `recent` latest evaluations and `trusted` latest trusted places, in one statement: two ordered, limited
 * reads of the user's own rows joined by UNION ALL, each row marked with the list it belongs to.
 */
const recentAndTrustedOfUser = prepared((db, p: { env: string; user: string; recent: number; trusted: number }) => {
  const columns = ["ip", "country_code", "latitude", "longitude", "network", "created_at", "device_id", "fingerprint_id"] as const;
  const own = () => db.selectFrom("evaluations").where("environment_id", "=", p.env).where("user_id", "=", p.user);
  const recent = own()
    .select([sql.lit(0).as("trusted"), ...columns])
    .orderBy("created_at", "desc")
    .limit(p.recent);
  const trustedPlaces = own()
    .select([sql.lit(1).as("trusted"), ...columns])
    .where("latitude", "is not", null)
    .where((eb) => trusted(eb))
    .orderBy("created_at", "desc")
    .limit(p.trusted);
  return db
    .selectFrom(recent.as("r"))
    .selectAll()
    .unionAll(db.selectFrom(trustedPlaces.as("t")).selectAll());
});

interface ScalarParams extends AttemptParams {
  env: string;
  user: string;
  ip: string;
  fp: string;
  userSince: number;
  ipSince: number;
  fpSince: number;
  uKey: string;
  iKey: string;
  fKey: string;
  uFrom: number;
  iFrom: number;
  fFrom: number;
  uBucket: number;
  iBucket: number;
  fBucket: number;
  uExpires: number;
  iExpires: number;
  fExpires: number;
  /** Familiarity: the user's internal id, this IP, its network and ASN (-1: none), the browser's time zone and language. */
  knownUser: string;
  /** The browser's device (a stored one, found by its visitor token), asked whether the user signed in on it. */
  device: string;
  here: string;
  network: string;
  asn: number;
  zone: string;
  language: string;
}

interface ScalarsShape {
  user: boolean;
  ip: boolean;
  fp: boolean;
  familiar: boolean;
  zone: boolean;
  language: boolean;
  /** Whether the user signed in on this browser: its fingerprint in trusted evaluations, its device confirmed. */
  browser: boolean;
  attempts: boolean[];
}

/**
 * The history the checks read as numbers, in one statement of scalar subqueries (one compiled query per store kind
 * and combination of keys): the velocity counts of each key (user, IP, fingerprint), whether the user's trusted
 * evaluations include this IP and network, whether they include this time zone and any zone at all (migration 22),
 * this language and any language at all (migration 24), and the login attempts by browser, fingerprint, IP and network.
 *
 * Velocity: `rows` counts the stored evaluations in the window (the embedded store: one writer, so an evaluation is
 * stored before the next one reads); `buckets` (PostgreSQL) first counts this evaluation on each key's current bucket
 * by an upsert in a writable CTE, which takes the row's lock, so concurrent evaluations of one key serialise there and
 * each is told a different count (20 at once are told 1 to 20, on every instance sharing the store), and sums the
 * earlier buckets (untouched by the upsert, so the statement's snapshot reads them as they are).
 */
function scalarsQuery(mode: "rows" | "buckets", has: ScalarsShape) {
  return prepared((kdb, p: ScalarParams) => {
    const db = kdb.withTables<VelocityTables>();
    const keys = [
      { has: has.user, key: p.uKey, bucket: p.uBucket, expires: p.uExpires },
      { has: has.ip, key: p.iKey, bucket: p.iBucket, expires: p.iExpires },
      { has: has.fp, key: p.fKey, bucket: p.fBucket, expires: p.fExpires },
    ].filter((k) => k.has);
    const bumps = mode === "buckets" && keys.length > 0;
    const base = bumps
      ? db.with("bumped", (d) =>
          d
            .insertInto("velocity_counters")
            .values(keys.map((k) => ({ key: k.key, bucket: k.bucket, count: 1, expires_at: k.expires })))
            .onConflict((oc) => oc.columns(["key", "bucket"]).doUpdateSet((eb) => ({ count: eb("velocity_counters.count", "+", 1) })))
            .returning(["key", "count"]),
        )
      : db;
    return (base as typeof db).selectNoFrom((eb) => {
      const count = (
        present: boolean,
        by: "user_id" | "ip" | "fingerprint_id",
        rows: { value: string; since: number },
        buckets: { key: string; from: number; before: number },
        alias: string,
      ) => {
        if (!present) return [eb.val(0).as(alias)];
        if (mode === "buckets")
          return [
            eb
              .selectFrom("velocity_counters")
              .select((e) => e.fn.coalesce(e.fn.sum<number>("count"), e.val(0)).as("n"))
              .where("key", "=", buckets.key)
              .where("bucket", ">=", buckets.from)
              .where("bucket", "<", buckets.before)
              .as(alias),
            // This evaluation's place in the current bucket (itself included).
            (eb as unknown as ExpressionBuilder<{ bumped: { key: string; count: number } }, never>)
              .selectFrom("bumped")
              .select("bumped.count")
              .where("bumped.key", "=", buckets.key)
              .as(`${alias}_now`),
          ];
        return [
          eb
            .selectFrom("evaluations")
            .select(eb.fn.countAll<number>().as("n"))
            .where("environment_id", "=", p.env)
            .where(by, "=", rows.value)
            .where("created_at", ">=", rows.since)
            .as(alias),
        ];
      };
      const trustedOwn = () =>
        eb
          .selectFrom("evaluations")
          .select("id")
          .where("environment_id", "=", p.env)
          .where("user_id", "=", p.knownUser)
          .where((e) => trusted(e as never));
      return [
        ...count(
          has.user,
          "user_id",
          { value: p.user, since: p.userSince },
          { key: p.uKey, from: p.uFrom, before: p.uBucket },
          "user_events",
        ),
        ...count(has.ip, "ip", { value: p.ip, since: p.ipSince }, { key: p.iKey, from: p.iFrom, before: p.iBucket }, "ip_events"),
        ...count(
          has.fp,
          "fingerprint_id",
          { value: p.fp, since: p.fpSince },
          { key: p.fKey, from: p.fFrom, before: p.fBucket },
          "fingerprint_events",
        ),
        ...(has.familiar
          ? [
              eb.exists(trustedOwn().where("ip", "=", p.here)).as("seen_ip"),
              eb.exists(trustedOwn().where((e) => e.or([e("network", "=", p.network), e("asn", "=", p.asn)]))).as("seen_network"),
            ]
          : []),
        ...(has.browser
          ? [
              // On this device: a trusted evaluation with these components on another device (a token the user's
              // browser had before) says nothing of this one's token.
              eb.exists(trustedOwn().where("fingerprint_id", "=", p.fp).where("device_id", "=", p.device)).as("seen_browser"),
              eb
                .exists(
                  eb
                    .selectFrom("device_confirmations")
                    .select("device_id")
                    .where("environment_id", "=", p.env)
                    .where("device_id", "=", p.device)
                    .where("user_id", "=", p.knownUser),
                )
                .as("signed_in_here"),
            ]
          : []),
        ...(has.zone
          ? [
              eb.exists(trustedOwn().where("timezone", "=", p.zone)).as("seen_zone"),
              eb.exists(trustedOwn().where("timezone", "is not", null)).as("any_zone"),
            ]
          : []),
        ...(has.language
          ? [
              eb.exists(trustedOwn().where("language", "=", p.language)).as("seen_language"),
              eb.exists(trustedOwn().where("language", "is not", null)).as("any_language"),
            ]
          : []),
        ...attemptCounts(eb as never, p, has.attempts),
      ];
    }) as unknown as Compilable<Record<string, unknown>>;
  });
}
const scalarsByShape = new Map<string, ReturnType<typeof scalarsQuery>>();

export interface HistoryScalars {
  userEvents: number;
  ipEvents: number;
  fingerprintEvents: number;
  /** Whether the user's trusted evaluations include this IP, and this network (its /24 or /48, or its ASN). */
  familiar: { ip: boolean; network: boolean };
  /**
   * Whether the user signed in on this browser: a trusted evaluation of the user with its fingerprint on its device
   * (`seen`), and its device among the user's confirmed ones (`device`). False without a user or a device.
   */
  browser: { seen: boolean; device: boolean };
  /** Whether they include a browser set to this time zone; null when not asked, or none of them has a zone. */
  zone: boolean | null;
  /** Whether they include a browser set to this language; null when not asked, or none of them has a language. */
  language: boolean | null;
  attempts: AttemptCounts;
}

export class HistoryRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
    /** Shared with FingerprintsRepo: the reads of one evaluation go out together on PostgreSQL (store/user-lists.ts). */
    private readonly lists: UserLists,
  ) {
    super(transactions);
  }

  /**
   * The user's latest evaluations (`recent`, newest first) and latest trusted evaluations with a location (`trusted`,
   * newest first: travel is measured from them), read in one statement.
   */
  async recentAndTrusted(
    environmentId: string,
    userId: string,
    limits = { recent: 10, trusted: 5 },
  ): Promise<{ recent: RecentEvaluation[]; trusted: TrustedPlace[] }> {
    const rows = await recentAndTrustedOfUser.rows(this.db, { env: environmentId, user: userId, ...limits });
    const newest = (a: { created_at: number }, b: { created_at: number }) => b.created_at - a.created_at;
    const recent: RecentEvaluation[] = [];
    const places: TrustedPlace[] = [];
    for (const r of rows) {
      if (Number(r.trusted) === 1)
        places.push({
          ip: r.ip,
          country_code: r.country_code,
          latitude: Number(r.latitude),
          longitude: Number(r.longitude),
          network: r.network,
          created_at: Number(r.created_at),
        });
      else
        recent.push({
          ip: r.ip,
          country_code: r.country_code,
          latitude: r.latitude,
          longitude: r.longitude,
          created_at: Number(r.created_at),
          device_id: r.device_id,
          fingerprint_id: r.fingerprint_id,
        });
    }
    // UNION ALL keeps each part's rows but not their order.
    return { recent: recent.sort(newest), trusted: places.sort(newest) };
  }

  /**
   * The numbers the checks read, in one statement (scalarsQuery). Velocity: how many evaluations of this user, IP and
   * fingerprint came before this one in their windows (`userId`: the internal id of a known user). Familiarity
   * (`familiar`, for a known user): has the user been seen, in trusted evaluations, on this IP, and on this network
   * (the same /24 or /48, or the same ASN when one is given)? Login attempts since `attempts.since.hour` by each key the
   * request has (0 for a key it lacks), and since `attempts.since.day`.
   *
   * On PostgreSQL, concurrent evaluations cannot see each other's uncommitted rows: 20 evaluations of one user arriving
   * together all counted 0 before them. There each evaluation is counted on the velocity counters first, by an atomic
   * upsert that tells each one its own place (`externalUser`: the customer's user id, so a user not stored yet counts
   * too), before it is stored: an evaluation that fails later still counted, as an attempt. The embedded store has one
   * writer and counts the stored evaluations exactly.
   */
  async scalars(
    environmentId: string,
    keys: { userId?: string; externalUser?: string; ip?: string; fingerprintId?: string; deviceId?: string },
    since: { user: number; ip: number; fingerprint: number },
    at: number,
    familiar: { userId: string; ip: string; network: string; asn?: number } | undefined,
    attempts: { keys: AttemptKeys; since: { hour: number; day: number } },
    /** The browser's time zone and language, asked of the user's trusted evaluations (with `keys.userId`). */
    settings: { zone?: string | undefined; language?: string | undefined } = {},
  ): Promise<HistoryScalars> {
    const { userId, externalUser, ip, fingerprintId, deviceId } = keys;
    const env = environmentId;
    const buckets = this.dialect === "postgres";
    const u = buckets && externalUser ? velocityKey("u", env, externalUser, at, at - since.user) : undefined;
    const i = buckets && ip ? velocityKey("i", env, ip, at, at - since.ip) : undefined;
    const f = buckets && fingerprintId ? velocityKey("f", env, fingerprintId, at, at - since.fingerprint) : undefined;
    const velocity = buckets ? { user: !!u, ip: !!i, fp: !!f } : { user: !!userId, ip: !!ip, fp: !!fingerprintId };
    const present = attemptKeysPresent(attempts.keys);
    const { zone, language } = settings;
    const has: ScalarsShape = {
      ...velocity,
      familiar: !!familiar,
      zone: !!userId && !!zone,
      language: !!userId && !!language,
      browser: !!userId,
      attempts: present,
    };

    const shape = `${buckets ? "b" : "r"}${has.user ? "u" : ""}${has.ip ? "i" : ""}${has.fp ? "f" : ""}${has.familiar ? "s" : ""}${has.zone ? "z" : ""}${has.language ? "l" : ""}${has.browser ? "w" : ""}:${present.map((x) => (x ? 1 : 0)).join("")}`;
    let query = scalarsByShape.get(shape);
    if (!query) {
      query = scalarsQuery(buckets ? "buckets" : "rows", has);
      scalarsByShape.set(shape, query);
    }
    const row = await query.first(this.db, {
      env,
      user: userId ?? "",
      ip: ip ?? "",
      fp: fingerprintId ?? "",
      userSince: since.user,
      ipSince: since.ip,
      fpSince: since.fingerprint,
      uKey: u?.key ?? "",
      iKey: i?.key ?? "",
      fKey: f?.key ?? "",
      uFrom: u?.from ?? 0,
      iFrom: i?.from ?? 0,
      fFrom: f?.from ?? 0,
      uBucket: u?.bucket ?? 0,
      iBucket: i?.bucket ?? 0,
      fBucket: f?.bucket ?? 0,
      uExpires: u?.expires ?? 0,
      iExpires: i?.expires ?? 0,
      fExpires: f?.expires ?? 0,
      knownUser: familiar?.userId ?? userId ?? "",
      device: deviceId ?? "",
      here: familiar?.ip ?? "",
      network: familiar?.network ?? "",
      // No ASN to compare: -1 matches none (ASNs are positive).
      asn: familiar?.asn ?? -1,
      zone: zone ?? "",
      language: language ?? "",
      ...attemptParams(attempts.keys, attempts.since, userId),
    });
    if (!row) throw new Error("The history query answered no row");
    const r = row as Record<string, unknown>;
    // With buckets: the earlier buckets, and the current one's count less this evaluation.
    const before = (k: VelocityKey | undefined, alias: string) => Number(r[alias] ?? 0) + (k ? Number(r[`${alias}_now`] ?? 1) - 1 : 0);
    const yes = (v: unknown) => v === true || Number(v) > 0;
    return {
      userEvents: before(u, "user_events"),
      ipEvents: before(i, "ip_events"),
      fingerprintEvents: before(f, "fingerprint_events"),
      familiar: { ip: yes(r.seen_ip), network: yes(r.seen_network) },
      browser: { seen: yes(r.seen_browser), device: yes(r.signed_in_here) },
      zone: has.zone && yes(r.any_zone) ? yes(r.seen_zone) : null,
      language: has.language && yes(r.any_language) ? yes(r.seen_language) : null,
      attempts: attemptCountsOf(r),
    };
  }

  /** Drops velocity buckets that have left their window; any instance may run it, it is idempotent. */
  async pruneVelocity(at: number): Promise<number> {
    const res = await this.db.withTables<VelocityTables>().deleteFrom("velocity_counters").where("expires_at", "<", at).executeTakeFirst();
    return Number(res.numDeletedRows ?? 0n);
  }

  /** Distinct users evaluated from this IP since `since` (at most `cap` are counted). */
  ipUsers(environmentId: string, ip: string, since: number, cap = 200): Promise<string[]> {
    return this.lists.ipUsers(environmentId, ip, since, cap);
  }

  /** The user's devices, most recently seen first (at most `cap`). */
  userDevices(environmentId: string, userId: string, cap = 200): Promise<UserDevice[]> {
    return this.lists.userDevices(environmentId, userId, cap);
  }

  /** Distinct other users who submitted content with this hash since `since`. */
  async contentUsers(
    environmentId: string,
    hash: string,
    since: number,
    exceptUser: string | null,
    cap = 200,
  ): Promise<{ users: number; total: number }> {
    const rows = await this.db
      .selectFrom("content_hashes")
      .select("user_id")
      .where("environment_id", "=", environmentId)
      .where("hash", "=", hash)
      .where("created_at", ">=", since)
      .limit(cap)
      .execute();
    const others = rows.filter((r) => exceptUser === null || r.user_id !== exceptUser);
    return { users: new Set(others.map((r) => r.user_id ?? "")).size, total: others.length };
  }

  async recordContent(environmentId: string, hash: string, userId: string | null, at: number): Promise<void> {
    await this.db
      .insertInto("content_hashes")
      .values({ id: newId("cnt"), environment_id: environmentId, hash, user_id: userId, created_at: at })
      .execute();
  }
}
