// The four lists of users and devices the checks read for an evaluation (checks/history.ts): the users of the IP, the
// user's devices, the accounts of the fingerprint, and the confirmed users of these exact components from this IP.
//
// On PostgreSQL each statement is a round trip, so the reads asked for together are sent as one (docs/operations.md): each
// repository call joins a batch of its connection (the open transaction, else the pool), and the batch is sealed once
// the code that asked has run up to its next await (a microtask): the calls of one `Promise.all` become one
// `union all` of the reads, each row marked with the read it answers, the columns of the others null, and that read
// goes out with the other reads asked at the same moment, in one statement (store/joined-reads.ts). A read asked
// alone is a read of its own in that statement (or its own statement, as before, when nothing else was asked). On the embedded store every read is a call on the one connection,
// not a round trip, and the plain indexed reads cost less than the joined statement (the four lists of the bench's
// traffic: 63–67 µs of CPU per evaluation read plainly, 71–75 µs joined, interleaved runs): they run as they are asked.
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { Dialect } from "./db.js";
import { beforeFlight, type JoinableRead, joinable, joinRead } from "./joined-reads.js";
import { prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { Transactions } from "./transactions.js";

export interface UserDevice {
  id: string;
  type: string;
  status: string;
  /** The user signed in on it (device_confirmations): what it does is theirs (store/history.ts, trusted history). */
  confirmed: boolean;
  fingerprint_id: string | null;
  last_seen_at: number | null;
  last_ip: string | null;
  created_at: number;
}

/** The accounts of one fingerprint: confirmed users, and every user that logged in from it lately (accounts tried). */
export interface FingerprintUsers {
  confirmed: string[];
  triedSince: string[];
}

// Every read's values, under names of their own, so that any of them can share one statement.
interface Params {
  env: string;
  ip: string;
  ipSince: number;
  ipCap: number;
  user: string;
  /** The devices' cap and one more: read unordered, more rows than the cap are read again in order. */
  devLimit: number;
  devCap: number;
  fp: string;
  fpSince: number;
  loginSince: number;
  fpCap: number;
  hash: string;
  atIp: string;
  atIpSince: number;
  atIpCap: number;
}

type Build = (db: Kysely<Database>, p: Params) => SelectQueryBuilder<Database, never, Record<string, unknown>>;
type Any = SelectQueryBuilder<Database, never, Record<string, unknown>>;

/** Distinct users of the evaluations from one IP since a time. */
const ipUsersQuery: Build = (db, p) =>
  db
    .selectFrom("evaluations")
    .select("user_id")
    .distinct()
    .where("environment_id", "=", p.env)
    .where("ip_key", "=", p.ip)
    .where("created_at", ">=", p.ipSince)
    .where("user_id", "is not", null)
    .limit(p.ipCap) as unknown as Any;

/** Whether the `devices` row's user signed in on it (device_confirmations: one primary-key probe). */
export const userSignedInOnDevice = (eb: ExpressionBuilder<Database, "devices">) =>
  eb.exists(
    eb
      .selectFrom("device_confirmations")
      .select("device_confirmations.device_id")
      .whereRef("device_confirmations.environment_id", "=", "devices.environment_id")
      .whereRef("device_confirmations.device_id", "=", "devices.id")
      .whereRef("device_confirmations.user_id", "=", "devices.user_id"),
  );

/** A device's columns the checks read, and whether its user signed in on it. */
const deviceColumns = (db: Kysely<Database>) =>
  db
    .selectFrom("devices")
    .select((eb) => [
      "id",
      "type",
      "status",
      "fingerprint_id",
      "last_seen_at",
      "last_ip",
      "created_at",
      eb.case().when(userSignedInOnDevice(eb)).then(1).else(0).end().as("confirmed"),
    ]);
/** The user's devices, unordered, one more than the cap (store/prepared.ts, newestFirst: SQLite sorts through a b-tree). */
const devicesQuery: Build = (db, p) =>
  deviceColumns(db).where("environment_id", "=", p.env).where("user_id", "=", p.user).limit(p.devLimit) as unknown as Any;
/** More devices than the cap: the `cap` most recently seen. */
const newestDevicesRead = prepared((db, p: { env: string; user: string; devCap: number }) =>
  deviceColumns(db).where("environment_id", "=", p.env).where("user_id", "=", p.user).orderBy("last_seen_at", "desc").limit(p.devCap),
);

/**
 * The users of the evaluations of one fingerprint since a time, each with whether it is provisional (first seen on a
 * login the backend never confirmed) and whether it logged in from the fingerprint since `loginSince`.
 */
const fingerprintUsersQuery: Build = (db, p) =>
  db
    .selectFrom("evaluations")
    .innerJoin("users", "users.id", "evaluations.user_id")
    .select((eb) => [
      "evaluations.user_id",
      eb.fn.max("users.provisional").as("provisional"),
      sql<number>`max(case when ${eb.ref("evaluations.action")} = 'login' and ${eb.ref("evaluations.created_at")} >= ${p.loginSince} then 1 else 0 end)`.as(
        "tried",
      ),
    ])
    .where("evaluations.environment_id", "=", p.env)
    .where("evaluations.fingerprint_id", "=", p.fp)
    .where("evaluations.created_at", ">=", p.fpSince)
    .groupBy("evaluations.user_id")
    .limit(p.fpCap) as unknown as Any;

/**
 * The same from one IP, over the fingerprints with one exact hash: components that do not identify a browser (every
 * phone of a model shares them) get a record per device, yet still name one browser on one home's or office's address,
 * as a device does whose storage was cleared. Served by the IP index.
 */
const usersAtIpQuery: Build = (db, p) =>
  db
    .selectFrom("evaluations")
    .innerJoin("fingerprints", "fingerprints.id", "evaluations.fingerprint_id")
    .innerJoin("users", "users.id", "evaluations.user_id")
    .select("evaluations.user_id")
    .distinct()
    .where("evaluations.environment_id", "=", p.env)
    .where("evaluations.ip_key", "=", p.atIp)
    .where("evaluations.created_at", ">=", p.atIpSince)
    .where("fingerprints.exact_hash", "=", p.hash)
    .where("users.provisional", "=", 0)
    .limit(p.atIpCap) as unknown as Any;

// Each joins the evaluation's other reads on PostgreSQL (store/joined-reads.ts) when asked alone.
const ipUsersRead = joinable(12, ipUsersQuery);
const devicesRead = joinable(12, devicesQuery);
const fingerprintUsersRead = joinable(12, fingerprintUsersQuery);
const usersAtIpRead = joinable(12, usersAtIpQuery);

type Kind = "ip" | "devices" | "fingerprint" | "atIp";
const KINDS: readonly Kind[] = ["ip", "devices", "fingerprint", "atIp"];

// The joined statement's columns, in order, with their PostgreSQL types (a read leaves the others null).
const COLUMNS = [
  ["user_id", "text"],
  ["provisional", "integer"],
  ["tried", "integer"],
  ["id", "text"],
  ["type", "text"],
  ["status", "text"],
  ["fingerprint_id", "text"],
  ["last_seen_at", "bigint"],
  ["last_ip", "text"],
  ["created_at", "bigint"],
  ["confirmed", "integer"],
] as const;
const OWN: Record<Kind, readonly string[]> = {
  ip: ["user_id"],
  devices: ["id", "type", "status", "fingerprint_id", "last_seen_at", "last_ip", "created_at", "confirmed"],
  fingerprint: ["user_id", "provisional", "tried"],
  atIp: ["user_id"],
};

/**
 * The reads of `kinds` as one `union all` (PostgreSQL): each read a derived table of its own query (its `distinct`,
 * `group by` and `limit` intact), its rows marked with the read's number.
 */
function joinedQuery(kinds: readonly Kind[]): JoinableRead<Params, Record<string, unknown>> {
  return joinable(12, (db, p: Params) => {
    const inner: Record<Kind, () => Any> = {
      ip: () => ipUsersQuery(db, p),
      devices: () => devicesQuery(db, p),
      fingerprint: () => fingerprintUsersQuery(db, p),
      atIp: () => usersAtIpQuery(db, p),
    };
    const branch = (kind: Kind) => {
      const alias = `r_${kind}`;
      const own = OWN[kind];
      return db
        .selectFrom(inner[kind]().as(alias))
        .select([
          sql.lit(KINDS.indexOf(kind)).as("kind"),
          ...COLUMNS.map(([name, type]) =>
            own.includes(name) ? sql.ref(`${alias}.${name}`).as(name) : sql`cast(null as ${sql.raw(type)})`.as(name),
          ),
        ]) as unknown as Any;
    };
    const [first, ...rest] = kinds.map(branch);
    return rest.reduce((q, b) => q.unionAll(b), first as Any);
  });
}

interface Part {
  kind: Kind;
  resolve: (rows: Array<Record<string, unknown>>) => void;
  reject: (e: unknown) => void;
}

interface Batch {
  env: string;
  params: Partial<Params>;
  parts: Part[];
}

const toDevice = (r: Record<string, unknown>): UserDevice => ({
  id: r.id as string,
  type: r.type as string,
  status: r.status as string,
  confirmed: Number(r.confirmed) === 1,
  fingerprint_id: (r.fingerprint_id as string | null) ?? null,
  last_seen_at: r.last_seen_at == null ? null : Number(r.last_seen_at),
  last_ip: (r.last_ip as string | null) ?? null,
  created_at: Number(r.created_at),
});

export class UserLists {
  /** The batch being gathered on each connection (a transaction, or the pool), until its microtask sends it. */
  private readonly gathering = new Map<Kysely<Database>, Batch>();
  private readonly joined = new Map<string, JoinableRead<Params, Record<string, unknown>>>();

  constructor(
    private readonly transactions: Transactions,
    private readonly dialect: Dialect,
  ) {}

  /** Distinct users evaluated from this IP since `since` (at most `cap`). */
  async ipUsers(env: string, ip: string, since: number, cap = 200): Promise<string[]> {
    const rows = await this.read("ip", env, { ip, ipSince: since, ipCap: cap });
    return rows.map((r) => r.user_id as string);
  }

  /** The user's devices, most recently seen first (at most `cap`). */
  async userDevices(env: string, user: string, cap = 200): Promise<UserDevice[]> {
    const rows = await this.read("devices", env, { user, devCap: cap, devLimit: cap + 1 });
    // More than the cap: the newest `cap` of them, ordered by the store; else all of them, sorted here.
    if (rows.length > cap) return (await newestDevicesRead.rows(this.transactions.db, { env, user, devCap: cap })).map(toDevice);
    return rows.sort((a, b) => Number(b.last_seen_at) - Number(a.last_seen_at)).map(toDevice);
  }

  /**
   * The accounts of one fingerprint: the confirmed users of its evaluations since `since` (not provisional), and every
   * user, provisional included, that logged in from it since `loginSince` (accounts tried).
   */
  async fingerprintUsers(env: string, fp: string, since: number, loginSince: number, cap = 200): Promise<FingerprintUsers> {
    const rows = await this.read("fingerprint", env, { fp, fpSince: since, loginSince, fpCap: cap });
    const confirmed: string[] = [];
    const triedSince: string[] = [];
    for (const r of rows) {
      const id = r.user_id as string;
      if (Number(r.provisional) === 0) confirmed.push(id);
      if (Number(r.tried) > 0) triedSince.push(id);
    }
    return { confirmed, triedSince };
  }

  /** Distinct confirmed users of the evaluations from one IP, since `since`, of fingerprints with this exact hash. */
  async confirmedUsersAtIp(env: string, hash: string, ip: string, since: number, cap = 200): Promise<string[]> {
    const rows = await this.read("atIp", env, { hash, atIp: ip, atIpSince: since, atIpCap: cap });
    return rows.map((r) => r.user_id as string);
  }

  private read(kind: Kind, env: string, params: Partial<Params>): Promise<Array<Record<string, unknown>>> {
    const db = this.transactions.db;
    if (this.dialect !== "postgres") return this.alone(db, kind, { env, ...params } as Params);
    let batch = this.gathering.get(db);
    // One read of each kind and one environment per statement: another starts a batch of its own.
    if (!batch || batch.env !== env || batch.parts.some((p) => p.kind === kind)) {
      const fresh: Batch = { env, params: { env }, parts: [] };
      batch = fresh;
      this.gathering.set(db, fresh);
      // Sent with the other reads asked now (store/joined-reads.ts): one statement for all of them.
      beforeFlight(db, () => {
        if (this.gathering.get(db) === fresh) this.gathering.delete(db);
        void this.send(db, fresh);
      });
    }
    Object.assign(batch.params, params);
    const b = batch;
    return new Promise((resolve, reject) => b.parts.push({ kind, resolve, reject }));
  }

  private async alone(db: Kysely<Database>, kind: Kind, p: Params): Promise<Array<Record<string, unknown>>> {
    const read = { ip: ipUsersRead, devices: devicesRead, fingerprint: fingerprintUsersRead, atIp: usersAtIpRead }[kind];
    return joinRead(db, this.dialect, read as JoinableRead<Params, Record<string, unknown>>, p);
  }

  private async send(db: Kysely<Database>, batch: Batch): Promise<void> {
    const { parts } = batch;
    const params = batch.params as Params;
    try {
      if (parts.length === 1) {
        const [part] = parts as [Part];
        part.resolve(await this.alone(db, part.kind, params));
        return;
      }
      const kinds = KINDS.filter((k) => parts.some((p) => p.kind === k));
      const shape = kinds.join(",");
      let query = this.joined.get(shape);
      if (!query) {
        query = joinedQuery(kinds);
        this.joined.set(shape, query);
      }
      const rows = await joinRead(db, this.dialect, query, params);
      const byKind = new Map<Kind, Array<Record<string, unknown>>>(kinds.map((k) => [k, []]));
      for (const r of rows) byKind.get(KINDS[Number(r.kind)] as Kind)?.push(r);
      for (const part of parts) part.resolve(byKind.get(part.kind) ?? []);
    } catch (e) {
      for (const part of parts) part.reject(e);
    }
  }
}
