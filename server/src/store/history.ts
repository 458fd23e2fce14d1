// Repository of the behavioural history the checks read (SPEC.md 6): recent evaluations of a user, sliding-window
// counts per user, IP and fingerprint, devices per user, users per fingerprint and per IP (per visitor token:
// DevicesRepo.tokenUsers), repeated content. Every query is bounded and served by an index, and all of it lives in
// the shared store, so several instances agree on velocity and device counts.
import type { Kysely } from "kysely";
import { newId } from "../ids.js";
import { newestFirst, prepared } from "./prepared.js";
import type { Database } from "./schema.js";

export interface RecentEvaluation {
  ip: string | null;
  country_code: string | null;
  latitude: number | null;
  longitude: number | null;
  created_at: number;
  device_id: string | null;
  fingerprint_id: string | null;
}

export interface UserDevice {
  id: string;
  type: string;
  status: string;
  fingerprint_id: string | null;
  last_seen_at: number | null;
  last_ip: string | null;
}

const recentOfUser = prepared((db, p: { env: string; user: string; limit: number }) =>
  db
    .selectFrom("evaluations")
    .select(["ip", "country_code", "latitude", "longitude", "created_at", "device_id", "fingerprint_id"])
    .where("environment_id", "=", p.env)
    .where("user_id", "=", p.user)
    .orderBy("created_at", "desc")
    .limit(p.limit),
);
/** Distinct users of the evaluations since `since` by one key (IP or fingerprint), at most `cap`. */
const evaluatedUsersBy = (by: "ip" | "fingerprint_id") =>
  prepared((db, p: { env: string; value: string; since: number; cap: number }) =>
    db
      .selectFrom("evaluations")
      .select("user_id")
      .distinct()
      .where("environment_id", "=", p.env)
      .where(by, "=", p.value)
      .where("created_at", ">=", p.since)
      .where("user_id", "is not", null)
      .limit(p.cap),
  );
const usersByIp = evaluatedUsersBy("ip");
const usersByFingerprint = evaluatedUsersBy("fingerprint_id");
const devicesOfUser = newestFirst("last_seen_at", (db, p: { env: string; user: string }) =>
  db
    .selectFrom("devices")
    .select(["id", "type", "status", "fingerprint_id", "last_seen_at", "last_ip"])
    .where("environment_id", "=", p.env)
    .where("user_id", "=", p.user),
);

interface CounterParams {
  env: string;
  user: string;
  ip: string;
  fp: string;
  userSince: number;
  ipSince: number;
  fpSince: number;
}

/** The counters statement for the keys a request has (user, IP, fingerprint): one compiled query per combination. */
function countersQuery(hasUser: boolean, hasIp: boolean, hasFp: boolean) {
  return prepared((db, p: CounterParams) =>
    db.selectNoFrom((eb) => {
      const count = (by: "user_id" | "ip" | "fingerprint_id", has: boolean, value: string, from: number, alias: string) =>
        has
          ? eb
              .selectFrom("evaluations")
              .select(eb.fn.countAll<number>().as("n"))
              .where("environment_id", "=", p.env)
              .where(by, "=", value)
              .where("created_at", ">=", from)
              .as(alias)
          : eb.val(0).as(alias);
      return [
        count("user_id", hasUser, p.user, p.userSince, "user_events"),
        count("ip", hasIp, p.ip, p.ipSince, "ip_events"),
        count("fingerprint_id", hasFp, p.fp, p.fpSince, "fingerprint_events"),
        hasUser && hasIp
          ? eb
              .exists(
                eb
                  .selectFrom("evaluations")
                  .select("id")
                  .where("environment_id", "=", p.env)
                  .where("user_id", "=", p.user)
                  .where("ip", "=", p.ip),
              )
              .as("seen_ip")
          : eb.val(0).as("seen_ip"),
      ];
    }),
  );
}
const countersByShape = new Map<string, ReturnType<typeof countersQuery>>();

export class HistoryRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async recentForUser(environmentId: string, userId: string, limit = 10): Promise<RecentEvaluation[]> {
    const rows = await recentOfUser.rows(this.db, { env: environmentId, user: userId, limit });
    return rows.map((r) => ({ ...r, created_at: Number(r.created_at) }));
  }

  /**
   * The velocity counters and "has this user been seen on this IP" in one statement of scalar subqueries (each on its
   * own index): one round trip instead of four on the evaluate hot path.
   */
  async counters(
    environmentId: string,
    keys: { userId?: string; ip?: string; fingerprintId?: string },
    since: { user: number; ip: number; fingerprint: number },
  ): Promise<{ seenIp: boolean; userEvents: number; ipEvents: number; fingerprintEvents: number }> {
    const { userId, ip, fingerprintId } = keys;
    const shape = `${userId ? "u" : ""}${ip ? "i" : ""}${fingerprintId ? "f" : ""}`;
    let query = countersByShape.get(shape);
    if (!query) {
      query = countersQuery(!!userId, !!ip, !!fingerprintId);
      countersByShape.set(shape, query);
    }
    const row = await query.first(this.db, {
      env: environmentId,
      user: userId ?? "",
      ip: ip ?? "",
      fp: fingerprintId ?? "",
      userSince: since.user,
      ipSince: since.ip,
      fpSince: since.fingerprint,
    });
    if (!row) throw new Error("The counters query answered no row");
    const r = row as unknown as Record<string, unknown>;
    return {
      seenIp: Boolean(Number(r.seen_ip) || r.seen_ip === true),
      userEvents: Number(r.user_events),
      ipEvents: Number(r.ip_events),
      fingerprintEvents: Number(r.fingerprint_events),
    };
  }

  /** Distinct users evaluated from this IP since `since` (at most `cap` are counted). */
  async ipUsers(environmentId: string, ip: string, since: number, cap = 200): Promise<string[]> {
    const rows = await usersByIp.rows(this.db, { env: environmentId, value: ip, since, cap });
    return rows.map((r) => r.user_id as string);
  }

  async userDevices(environmentId: string, userId: string, cap = 200): Promise<UserDevice[]> {
    const rows = await devicesOfUser.rows(this.db, { env: environmentId, user: userId }, cap);
    return rows.map((r) => ({ ...r, last_seen_at: r.last_seen_at == null ? null : Number(r.last_seen_at) }));
  }

  /** Distinct users evaluated with this fingerprint since `since` (at most `cap`). */
  async fingerprintUsers(environmentId: string, fingerprintId: string, since: number, cap = 200): Promise<string[]> {
    const rows = await usersByFingerprint.rows(this.db, { env: environmentId, value: fingerprintId, since, cap });
    return rows.map((r) => r.user_id as string);
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

  async recordContent(
    environmentId: string,
    hash: string,
    userId: string | null,
    at: number,
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    await db
      .insertInto("content_hashes")
      .values({ id: newId("cnt"), environment_id: environmentId, hash, user_id: userId, created_at: at })
      .execute();
  }
}
