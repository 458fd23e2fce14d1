// Repository of the behavioural history the checks read (docs/detection.md), asked by the fact providers (server/src/facts/):
// velocity counts per user, IP and fingerprint (on PostgreSQL atomic bucketed counters, so a burst sees itself), the
// user's trusted places, whether the user signed in on this browser, the familiarity ledger's answers
// (store/familiarity.ts), devices per user and users per IP (read with the fingerprint's users, store/user-lists.ts;
// per visitor token: DevicesRepo.tokenUsers), repeated content. Every query is bounded and served by an index, and all
// of it lives in the shared store, so several instances agree on velocity and device counts.
import { createHash } from "node:crypto";
import type { ExpressionBuilder, Kysely, QueryCreator } from "kysely";
import { newId } from "../ids.js";
import type { Dialect } from "./db.js";
import { type Familiar, type FamiliarQuestion, familiarAnswers, familiarColumns, familiarParams, recordFamiliar } from "./familiarity.js";
import { JoinableRead, joinable, joinRead } from "./joined-reads.js";
import {
  type AttemptCounts,
  type AttemptKeys,
  type AttemptParams,
  attemptCounts,
  attemptCountsOf,
  attemptKeysPresent,
  attemptParams,
} from "./login-attempts.js";
import { queueInsert } from "./prepared.js";
import type { Database } from "./schema.js";
import type { VelocityTables } from "./tables/velocity.js";
import { Repository, type Transactions } from "./transactions.js";
import type { UserDevice, UserLists } from "./user-lists.js";

/** A trusted evaluation of a user that has a location (docs/detection.md): where the user has really been. */
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

// ---- trusted history (docs/detection.md) ----------------------------------------------------------------------------------------
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
  await queueInsert(
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

/** What an evaluation that became trusted (confirmed) has, for `trust`. */
export interface TrustedRow {
  environment_id: string;
  device_id: string | null;
  user_id: string | null;
  familiar: string | null;
  created_at: number;
  /** The request's visitor token, when it only recognised its device by the fingerprint (confirmDevice). */
  pending_token?: string | null;
}

/**
 * An evaluation became the user's own (confirmed): the device it came from is one they signed in on, and the values it
 * carries enter their familiarity ledger (store/familiarity.ts). The one write of the three places that confirm an
 * evaluation: its insert (EvaluationsRepo.trustAtInsert), its consume, its challenge's verify. `deviceSignedIn`: the
 * user had signed in on the device already (nothing to add there).
 */
export async function trust(db: Kysely<Database>, row: TrustedRow, at: number, deviceSignedIn = false): Promise<void> {
  if (!deviceSignedIn) await confirmDevice(db, row, at);
  await recordFamiliar(db, row);
}

/** The user's latest trusted evaluations with a location, newest first (evaluations_env_user_time). */
const trustedPlacesOfUser = joinable(10, (db, p: { env: string; user: string; limit: number }) =>
  db
    .selectFrom("evaluations")
    .select(["ip", "country_code", "latitude", "longitude", "network", "created_at"])
    .where("environment_id", "=", p.env)
    .where("user_id", "=", p.user)
    .where("latitude", "is not", null)
    .where((eb) => trusted(eb))
    .orderBy("created_at", "desc")
    .limit(p.limit),
);

/** The parts of the history's statement of numbers an evaluation asks for (facts/scalars.ts gathers them). */
export interface ScalarParts {
  /**
   * Velocity: how many evaluations of this user, IP and fingerprint came before this one in their windows (`userId`:
   * the internal id of a known user; `externalUser`: the customer's user id, counted even for a user not stored yet).
   */
  velocity?: {
    /** `ip`: the per-IP key (geo/ip.ts, perIpKey): an IPv6 client is counted by its /64. */
    keys: { userId?: string; externalUser?: string; ip?: string; fingerprintId?: string };
    since: { user: number; ip: number; fingerprint: number };
    at: number;
  };
  /** Whether the user signed in on this browser: its fingerprint in their trusted evaluations, its device confirmed. */
  browser?: { userId: string; fingerprintId?: string; deviceId?: string };
  /** Logins on provisional users by each key the request has, since `since.hour` and `since.day`. */
  attempts?: { keys: AttemptKeys; since: { hour: number; day: number }; userId?: string };
  /** Questions to the user's familiarity ledger (store/familiarity.ts). */
  familiar?: { userId: string; questions: readonly FamiliarQuestion[] };
}

export interface Velocity {
  userEvents: number;
  ipEvents: number;
  fingerprintEvents: number;
}

export interface ScalarAnswers {
  velocity?: Velocity;
  /**
   * Whether the user signed in on this browser: a trusted evaluation of the user with its fingerprint (`seen`), and
   * its device among the user's confirmed ones (`device`).
   */
  browser?: { seen: boolean; device: boolean };
  attempts?: AttemptCounts;
  /** One answer per question, in their order. */
  familiar?: Familiar[];
}

interface VelocityParams {
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
}

/** The browser's user (a known one), fingerprint and device (a stored one), asked whether the user signed in on it. */
interface BrowserParams {
  browser_user: string;
  browser_fp: string;
  browser_device: string;
}

type ScalarParams = VelocityParams & BrowserParams & AttemptParams & Record<string, unknown>;

interface ScalarsShape {
  /** Which velocity keys are counted; undefined: no velocity asked. */
  velocity?: { user: boolean; ip: boolean; fp: boolean };
  browser: boolean;
  /** Which attempt keys the request has; undefined: no attempts asked. */
  attempts?: boolean[];
  /** The number of pairs of each familiarity question. */
  familiar: number[];
}

/**
 * The history the checks read as numbers, in one statement of scalar subqueries (one compiled query per store kind
 * and shape of the parts asked): the velocity counts of each key (user, IP, fingerprint), whether the user signed in on
 * this browser, the login attempts by browser, fingerprint, IP and network, and the familiarity ledger's answers.
 *
 * Velocity: `rows` counts the stored evaluations in the window (the embedded store: one writer, so an evaluation is
 * stored before the next one reads); `buckets` (PostgreSQL) first counts this evaluation on each key's current bucket
 * by an upsert in a writable CTE, which takes the row's lock, so concurrent evaluations of one key serialise there and
 * each is told a different count (20 at once are told 1 to 20, on every instance sharing the store), and sums the
 * earlier buckets (untouched by the upsert, so the statement's snapshot reads them as they are). The statement may
 * carry the evaluation's other reads asked at the same moment (store/joined-reads.ts): its upsert is then a CTE at the
 * top of that statement, under a name of its own, and all of it still one snapshot, which no other part writes under
 * these keys (the churn's and the farm's upserts count keys of other prefixes).
 */
function scalarsQuery(mode: "rows" | "buckets", has: ScalarsShape) {
  // Joined with the evaluation's other reads on PostgreSQL (store/joined-reads.ts), after them: the upsert's row locks
  // are taken last.
  return new JoinableRead(50, (_db, p: ScalarParams, name) => {
    const bumped = name("bumped");
    const v = has.velocity;
    const keys = v
      ? [
          { has: v.user, key: p.uKey, bucket: p.uBucket, expires: p.uExpires },
          { has: v.ip, key: p.iKey, bucket: p.iBucket, expires: p.iExpires },
          { has: v.fp, key: p.fKey, bucket: p.fBucket, expires: p.fExpires },
        ].filter((k) => k.has)
      : [];
    const bumps = mode === "buckets" && keys.length > 0;
    const ctes = bumps
      ? ([
          [
            bumped,
            (d: QueryCreator<Database & VelocityTables>) =>
              d
                .insertInto("velocity_counters")
                .values(keys.map((k) => ({ key: k.key, bucket: k.bucket, count: 1, expires_at: k.expires })))
                .onConflict((oc) => oc.columns(["key", "bucket"]).doUpdateSet((eb) => ({ count: eb("velocity_counters.count", "+", 1) })))
                .returning(["key", "count"]),
          ],
        ] as const)
      : [];
    const read = (base: QueryCreator<Database & VelocityTables>) =>
      base.selectNoFrom((eb) => {
        const count = (
          present: boolean,
          by: "user_id" | "ip_key" | "fingerprint_id",
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
              (eb as unknown as ExpressionBuilder<Record<string, { key: string; count: number }>, never>)
                .selectFrom(bumped)
                .select("count")
                .where("key", "=", buckets.key)
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
        return [
          ...(v
            ? [
                ...count(
                  v.user,
                  "user_id",
                  { value: p.user, since: p.userSince },
                  { key: p.uKey, from: p.uFrom, before: p.uBucket },
                  "user_events",
                ),
                ...count(v.ip, "ip_key", { value: p.ip, since: p.ipSince }, { key: p.iKey, from: p.iFrom, before: p.iBucket }, "ip_events"),
                ...count(
                  v.fp,
                  "fingerprint_id",
                  { value: p.fp, since: p.fpSince },
                  { key: p.fKey, from: p.fFrom, before: p.fBucket },
                  "fingerprint_events",
                ),
              ]
            : []),
          ...(has.browser
            ? [
                // On this device, found by its own visitor token: a trusted evaluation with these components on another
                // device (a token the user's browser had before, or a device they are presented on by someone else) says
                // nothing of this one (docs/security.md, "Recognising a browser is not trusting it").
                eb
                  .exists(
                    eb
                      .selectFrom("evaluations")
                      .select("id")
                      .where("environment_id", "=", p.env)
                      .where("user_id", "=", p.browser_user)
                      .where((e) => trusted(e as never))
                      .where("fingerprint_id", "=", p.browser_fp)
                      .where("device_id", "=", p.browser_device),
                  )
                  .as("seen_browser"),
                eb
                  .exists(
                    eb
                      .selectFrom("device_confirmations")
                      .select("device_id")
                      .where("environment_id", "=", p.env)
                      .where("device_id", "=", p.browser_device)
                      .where("user_id", "=", p.browser_user),
                  )
                  .as("signed_in_here"),
              ]
            : []),
          ...(has.attempts ? attemptCounts(eb as never, p, has.attempts) : []),
          ...familiarColumns(eb as never, p, has.familiar),
        ];
      });
    return { ctes, read: read as never };
  });
}
const scalarsByShape = new Map<string, ReturnType<typeof scalarsQuery>>();

export class HistoryRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
    /** Shared with FingerprintsRepo: the reads of one evaluation go out together on PostgreSQL (store/user-lists.ts). */
    private readonly lists: UserLists,
  ) {
    super(transactions);
  }

  /** The user's latest trusted evaluations with a location (at most `limit`), newest first: travel is measured from them. */
  async trustedPlaces(environmentId: string, userId: string, limit = 5): Promise<TrustedPlace[]> {
    const rows = await joinRead(this.db, this.dialect, trustedPlacesOfUser, { env: environmentId, user: userId, limit });
    return rows
      .map((r) => ({
        ip: r.ip,
        country_code: r.country_code,
        latitude: Number(r.latitude),
        longitude: Number(r.longitude),
        network: r.network,
        created_at: Number(r.created_at),
      }))
      .sort((a, b) => b.created_at - a.created_at);
  }

  /**
   * The numbers the checks read, in one statement (scalarsQuery): the parts asked (ScalarParts) and nothing else.
   *
   * On PostgreSQL, concurrent evaluations cannot see each other's uncommitted rows: 20 evaluations of one user arriving
   * together all counted 0 before them. There each evaluation is counted on the velocity counters first, by an atomic
   * upsert that tells each one its own place (`externalUser`: the customer's user id, so a user not stored yet counts
   * too), before it is stored: an evaluation that fails later still counted, as an attempt. The embedded store has one
   * writer and counts the stored evaluations exactly.
   */
  async scalars(environmentId: string, parts: ScalarParts): Promise<ScalarAnswers> {
    const env = environmentId;
    const buckets = this.dialect === "postgres";
    const vel = parts.velocity;
    const vk = vel?.keys ?? {};
    const at = vel?.at ?? 0;
    const u = vel && buckets && vk.externalUser ? velocityKey("u", env, vk.externalUser, at, at - vel.since.user) : undefined;
    const i = vel && buckets && vk.ip ? velocityKey("i", env, vk.ip, at, at - vel.since.ip) : undefined;
    const f = vel && buckets && vk.fingerprintId ? velocityKey("f", env, vk.fingerprintId, at, at - vel.since.fingerprint) : undefined;
    const velocity = vel
      ? buckets
        ? { user: !!u, ip: !!i, fp: !!f }
        : { user: !!vk.userId, ip: !!vk.ip, fp: !!vk.fingerprintId }
      : undefined;
    const attempts = parts.attempts;
    const present = attempts ? attemptKeysPresent(attempts.keys) : undefined;
    const questions = parts.familiar?.questions ?? [];
    const has: ScalarsShape = { velocity, browser: !!parts.browser, attempts: present, familiar: questions.map((q) => q.pairs.length) };
    if (!has.velocity && !has.browser && !has.attempts && questions.length === 0) return {};

    const flag = (b: boolean | undefined, c: string) => (b ? c : "");
    const shape = `${buckets ? "b" : "r"}${velocity ? `v${flag(velocity.user, "u")}${flag(velocity.ip, "i")}${flag(velocity.fp, "f")}` : ""}${flag(has.browser, "w")}:${present ? present.map((x) => (x ? 1 : 0)).join("") : "-"}:${has.familiar.join(",")}`;
    let query = scalarsByShape.get(shape);
    if (!query) {
      query = scalarsQuery(buckets ? "buckets" : "rows", has);
      scalarsByShape.set(shape, query);
    }
    const [row] = await joinRead(this.db, this.dialect, query, {
      env,
      user: vk.userId ?? "",
      ip: vk.ip ?? "",
      fp: vk.fingerprintId ?? "",
      userSince: vel?.since.user ?? 0,
      ipSince: vel?.since.ip ?? 0,
      fpSince: vel?.since.fingerprint ?? 0,
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
      browser_user: parts.browser?.userId ?? "",
      browser_fp: parts.browser?.fingerprintId ?? "",
      browser_device: parts.browser?.deviceId ?? "",
      ...(attempts ? attemptParams(attempts.keys, attempts.since, attempts.userId) : attemptParams({}, { hour: 0, day: 0 }, undefined)),
      ...(parts.familiar ? familiarParams(parts.familiar.userId, questions) : {}),
    });
    if (!row) throw new Error("The history query answered no row");
    const r = row as Record<string, unknown>;
    // With buckets: the earlier buckets, and the current one's count less this evaluation.
    const before = (k: VelocityKey | undefined, alias: string) => Number(r[alias] ?? 0) + (k ? Number(r[`${alias}_now`] ?? 1) - 1 : 0);
    const yes = (v: unknown) => v === true || Number(v) > 0;
    const out: ScalarAnswers = {};
    if (velocity)
      out.velocity = {
        userEvents: before(u, "user_events"),
        ipEvents: before(i, "ip_events"),
        fingerprintEvents: before(f, "fingerprint_events"),
      };
    if (has.browser) out.browser = { seen: yes(r.seen_browser), device: yes(r.signed_in_here) };
    if (attempts) out.attempts = attemptCountsOf(r);
    if (parts.familiar) out.familiar = familiarAnswers(r, questions.length);
    return out;
  }

  /** Drops velocity buckets that have left their window; any instance may run it, it is idempotent. */
  async pruneVelocity(at: number): Promise<number> {
    const res = await this.db.withTables<VelocityTables>().deleteFrom("velocity_counters").where("expires_at", "<", at).executeTakeFirst();
    return Number(res.numDeletedRows ?? 0n);
  }

  /** Distinct users evaluated from this per-IP key (geo/ip.ts, perIpKey) since `since` (at most `cap` are counted). */
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
