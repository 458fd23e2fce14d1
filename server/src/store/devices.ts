// Repository of devices: the hardware behind fingerprints, linked by visitor token and fingerprint (docs/server-api.md, docs/policies.md).
import type { Selectable } from "kysely";
import type { Dialect } from "./db.js";
import { joinable, joinRead } from "./joined-reads.js";
import { newestFirst, type Prepared, prepared, queueInsert, queueUpdate } from "./prepared.js";
import type { DevicesTable } from "./tables/core.js";
import { Repository, type Transactions } from "./transactions.js";
import { userSignedInOnDevice } from "./user-lists.js";

export type DeviceRow = Selectable<DevicesTable>;

/** Devices read per visitor token (one browser behind more accounts than this is read again, filtered). */
export const TOKEN_DEVICES = 16;
/** Rows of byToken's joined read on PostgreSQL: every device of the token while they fit, else the ordered reads. */
const TOKEN_READ_LIMIT = 3 * TOKEN_DEVICES + 1;

const byToken = newestFirst("last_seen_at", (db, p: { env: string; token: string }) =>
  db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("visitor_token", "=", p.token),
);
const byPreviousToken = newestFirst("last_seen_at", (db, p: { env: string; token: string }) =>
  db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("previous_token", "=", p.token),
);
const byRecognisedToken = newestFirst("last_seen_at", (db, p: { env: string; token: string }) =>
  db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("recognised_token", "=", p.token),
);

/**
 * The devices carrying this token now or before, unordered: byToken's two lists read in one statement. Two lookups
 * joined by `union all`, each on its own index: with `visitor_token = ? or previous_token = ?` in one WHERE, SQLite
 * scanned every device of the environment (and `union` compared whole rows to drop a device whose two tokens are
 * equal, costing more than the two lookups: byToken drops that repeat by id).
 */
const byEitherToken = joinable(1, (db, p: { env: string; token: string; limit: number }) =>
  db
    .selectFrom(
      db
        .selectFrom("devices")
        .selectAll()
        .where("environment_id", "=", p.env)
        .where("visitor_token", "=", p.token)
        .unionAll(db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("previous_token", "=", p.token))
        .as("d"),
    )
    .selectAll()
    .limit(p.limit),
);
/** The same with the devices recognised on the token (`recognised_token`), a third lookup on its own index. */
const byAnyToken = joinable(1, (db, p: { env: string; token: string; limit: number }) =>
  db
    .selectFrom(
      db
        .selectFrom("devices")
        .selectAll()
        .where("environment_id", "=", p.env)
        .where("visitor_token", "=", p.token)
        .unionAll(db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("previous_token", "=", p.token))
        .unionAll(db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("recognised_token", "=", p.token))
        .as("d"),
    )
    .selectAll()
    .limit(p.limit),
);

const byFingerprint = newestFirst("last_seen_at", (db, p: { env: string; fp: string }) =>
  db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where("fingerprint_id", "=", p.fp),
);

/** Devices by visitor token or fingerprint and owner state (see ownedBy), compiled once per variant. */
const owned = new Map<string, Prepared<{ env: string; value: string; owner: string }, DeviceRow>>();

/** How long an anonymous browser must have kept its token to count as a person for popularity (vouchedOwners). */
export const KEPT_BROWSER_MS = 12 * 3600 * 1000;

export class DevicesRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
  ) {
    super(transactions);
  }

  async find(environmentId: string, id: string): Promise<DeviceRow | undefined> {
    return this.db.selectFrom("devices").selectAll().where("environment_id", "=", environmentId).where("id", "=", id).executeTakeFirst();
  }

  /**
   * The devices of this visitor token, whoever owns them, most recently seen first (at most TOKEN_DEVICES): read once
   * per evaluation, they answer the drift candidate, the device of the request and the token's users. The devices
   * that carry it now, else those that carried it before. With `recognisedFor` (the identity step's own lookup, for
   * the owner its device is chosen for, as in ofToken), also the devices a browser presenting it was recognised as by
   * its fingerprint (`recognised_token`), when none of the token's own would do for that owner: such a device is
   * recognised there and never trusted. Everything that acts for the browser (detach, the heartbeat) asks without it.
   */
  async byToken(
    environmentId: string,
    token: string,
    opts: { recognisedFor?: string | null; read?: Promise<DeviceRow[]> } = {},
  ): Promise<DeviceRow[]> {
    const recognised = "recognisedFor" in opts;
    const owner = opts.recognisedFor;
    // Whether the token's own devices hold one ofToken would choose for the owner (undefined: anyone's).
    const serves = (rows: DeviceRow[]) =>
      owner === undefined ? rows.length > 0 : rows.some((r) => r.user_id === owner || (owner === null && r.user_id === null));
    const newest = (rows: DeviceRow[]) =>
      rows
        .filter((r, i) => rows.findIndex((o) => o.id === r.id) === i)
        .sort((a, b) => Number(b.last_seen_at) - Number(a.last_seen_at))
        .slice(0, TOKEN_DEVICES);
    const p = { env: environmentId, token };
    // The lists in one statement while they are short (every device of the token fits in the limit); the cut of a
    // longer list is left to the ordered queries. On the embedded store a statement is a call, not a round trip: the
    // ordered reads below cost less than the one that joins them (and each runs only when the ones before would not do).
    const limit = TOKEN_READ_LIMIT;
    const read =
      this.dialect === "sqlite"
        ? []
        : await (opts.read ?? joinRead(this.db, this.dialect, recognised ? byAnyToken : byEitherToken, { ...p, limit }));
    let own: DeviceRow[];
    let others: () => Promise<DeviceRow[]>;
    if (this.dialect !== "sqlite" && read.length < limit) {
      const current = read.filter((r) => r.visitor_token === token);
      const previous = read.filter((r) => r.previous_token === token);
      // The token's current devices, else those that carried it before; for an owner none of the current serves (a
      // mistyped login's device), both: the owner's device may have taken a private window's token since.
      own = newest(current.length > 0 && (!recognised || serves(current)) ? current : [...current, ...previous]);
      const rest = read.filter((r) => r.visitor_token !== token && r.previous_token !== token);
      others = async () => rest;
    } else {
      own = await byToken.rows(this.db, p, TOKEN_DEVICES);
      // A token a device carried before (its browser came back once without it): the device is still its own, also
      // beside current devices of other accounts (a mistyped login's) when the owner has none of those.
      if (own.length === 0) own = await byPreviousToken.rows(this.db, p, TOKEN_DEVICES);
      else if (recognised && !serves(own)) own = newest([...own, ...(await byPreviousToken.rows(this.db, p, TOKEN_DEVICES))]);
      others = () => byRecognisedToken.rows(this.db, p, TOKEN_DEVICES);
    }
    if (!recognised || serves(own)) return own;
    return newest([...own, ...(await others())]);
  }

  /**
   * PostgreSQL: the read byToken makes with `recognisedFor`, started now (the identity step asks it with the user's
   * lookup, in one statement: store/joined-reads.ts) and passed to byToken as `read`. The embedded store: undefined
   * (byToken reads there as before, after the user's lookup).
   */
  tokenRead(environmentId: string, token: string): Promise<DeviceRow[]> | undefined {
    if (this.dialect === "sqlite") return undefined;
    const read = joinRead(this.db, this.dialect, byAnyToken, { env: environmentId, token, limit: TOKEN_READ_LIMIT });
    // Read by byToken, or not at all when the user's lookup failed first: never an unhandled rejection.
    read.catch(() => {});
    return read;
  }

  /**
   * The device of a visitor token for `owner` (a live token resolves to its own device, never to another; docs/identity.md):
   * undefined = any owner (the request names no user); null = unowned devices only; an id = that user's device or an
   * unowned one. Another account's device is never answered for a named user: one browser used by two accounts is two
   * devices. `tokenRows`: the token's devices as byToken read them, which spare the lookup unless cut at TOKEN_DEVICES.
   */
  async ofToken(
    environmentId: string,
    token: string,
    owner: string | null | undefined,
    tokenRows?: DeviceRow[],
  ): Promise<DeviceRow | undefined> {
    let rows: DeviceRow[];
    if (tokenRows) {
      rows = tokenRows.filter((r) => owner === undefined || r.user_id === null || r.user_id === owner);
      if (rows.length === 0 && tokenRows.length >= TOKEN_DEVICES) rows = await this.ownedBy(environmentId, "visitor_token", token, owner);
    } else {
      rows = await this.ownedBy(environmentId, "visitor_token", token, owner);
    }
    // The user's own device before an unowned one.
    return (owner && rows.find((r) => r.user_id === owner)) || rows[0];
  }

  /**
   * The people someone vouched for behind these devices, by device id: an account (not a provisional user) that signed
   * in on the device (device_confirmations), or that has signed in on no device at all yet and was created by a
   * sign-up that was let in (its backend has not confirmed it; not an account a page merely named); or, for a device of no account, its visitor token, when the browser never named an account
   * there and was kept for KEPT_BROWSER_MS (an anonymous visitor's browser, not a token made for the occasion). An
   * account's device that a stranger's login attached but nobody confirmed, the device of a login that was not let in,
   * and a fresh token on a page that names no one vouch for no one: the client id is public.
   */
  async vouchedOwners(environmentId: string, rows: DeviceRow[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const owned = rows.filter((r) => r.user_id !== null).map((r) => r.id);
    const anonymous = rows.filter(
      (r) => r.user_id === null && r.visitor_token !== null && Number(r.last_seen_at ?? 0) - Number(r.created_at) >= KEPT_BROWSER_MS,
    );
    if (owned.length) {
      const accounts = await this.db
        .selectFrom("devices")
        .innerJoin("users", (j) => j.onRef("users.environment_id", "=", "devices.environment_id").onRef("users.id", "=", "devices.user_id"))
        .select(["devices.id", "devices.user_id"])
        .where("devices.environment_id", "=", environmentId)
        .where("devices.id", "in", owned)
        .where("users.provisional", "=", 0)
        .where((eb) =>
          eb.or([
            userSignedInOnDevice(eb),
            // Signed in on no device yet, created by a sign-up that was let in (its backend has not confirmed it). Not
            // an account a page or a custom action named: the client id is public, and naming creates the account.
            eb.and([
              eb.not(
                eb.exists(
                  eb
                    .selectFrom("device_confirmations")
                    .select("device_confirmations.device_id")
                    .whereRef("device_confirmations.environment_id", "=", "devices.environment_id")
                    .whereRef("device_confirmations.user_id", "=", "devices.user_id"),
                ),
              ),
              // Read on evaluations_env_user_time: the account's own evaluations.
              eb.exists(
                eb
                  .selectFrom("evaluations")
                  .select("evaluations.id")
                  .whereRef("evaluations.environment_id", "=", "devices.environment_id")
                  .whereRef("evaluations.user_id", "=", "devices.user_id")
                  .where("evaluations.action", "=", "signup")
                  .where("evaluations.verdict", "in", ["allow", "restrict"]),
              ),
            ]),
          ]),
        )
        .execute();
      for (const r of accounts) if (r.user_id) out.set(r.id, r.user_id);
    }
    if (anonymous.length) {
      // Read on evaluations_env_device_id_time: the device's evaluations that named an account.
      const named = await this.db
        .selectFrom("evaluations")
        .select("device_id")
        .distinct()
        .where("environment_id", "=", environmentId)
        .where(
          "device_id",
          "in",
          anonymous.map((r) => r.id),
        )
        .where("user_id", "is not", null)
        .execute();
      const namedSome = new Set(named.map((r) => r.device_id));
      for (const r of anonymous) if (!namedSome.has(r.id)) out.set(r.id, `token:${r.visitor_token}`);
    }
    return out;
  }

  /** Of these devices (most recently seen first), the first on which an evaluation named this user. */
  async namedBy(environmentId: string, rows: DeviceRow[], userId: string): Promise<DeviceRow | undefined> {
    // Read on evaluations_env_device_id_time: each device's own evaluations.
    const named = await this.db
      .selectFrom("evaluations")
      .select("device_id")
      .distinct()
      .where("environment_id", "=", environmentId)
      .where(
        "device_id",
        "in",
        rows.map((r) => r.id),
      )
      .where("user_id", "=", userId)
      .execute();
    const ids = new Set(named.map((r) => r.device_id));
    return rows.find((r) => ids.has(r.id));
  }

  /** The devices whose current fingerprint is this one, most recently seen first (at most `limit`), whoever owns them. */
  async byFingerprint(environmentId: string, fingerprintId: string, limit: number): Promise<DeviceRow[]> {
    return byFingerprint.rows(this.db, { env: environmentId, fp: fingerprintId }, limit);
  }

  /**
   * Distinct users of the token's devices (at most `cap`): from `tokenRows` (byToken's answer) unless they were cut
   * at TOKEN_DEVICES.
   */
  async tokenUsers(environmentId: string, token: string, tokenRows?: DeviceRow[], cap = 200): Promise<string[]> {
    if (tokenRows && tokenRows.length < TOKEN_DEVICES) {
      const users = new Set<string>();
      for (const r of tokenRows) if (r.user_id) users.add(r.user_id);
      return [...users];
    }
    const rows = await this.db
      .selectFrom("devices")
      .select("user_id")
      .distinct()
      .where("environment_id", "=", environmentId)
      .where("visitor_token", "=", token)
      .where("user_id", "is not", null)
      .limit(cap)
      .execute();
    return rows.map((r) => r.user_id as string);
  }

  private async ownedBy(
    environmentId: string,
    column: "visitor_token",
    value: string,
    owner: string | null | undefined,
  ): Promise<DeviceRow[]> {
    const kind = owner === null ? "unowned" : owner === undefined ? "any" : "owner";
    const key = `${column}/${kind}`;
    let query = owned.get(key);
    if (!query) {
      query = prepared((db, p: { env: string; value: string; owner: string }) => {
        let q = db.selectFrom("devices").selectAll().where("environment_id", "=", p.env).where(column, "=", p.value);
        if (kind === "unowned") q = q.where("user_id", "is", null);
        else if (kind === "owner") q = q.where((eb) => eb.or([eb("user_id", "=", p.owner), eb("user_id", "is", null)]));
        return q.orderBy("last_seen_at", "desc").limit(4);
      });
      owned.set(key, query);
    }
    return query.rows(this.db, { env: environmentId, value, owner: owner ?? "" });
  }

  async listForUser(environmentId: string, userId: string): Promise<DeviceRow[]> {
    return this.db
      .selectFrom("devices")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("user_id", "=", userId)
      .orderBy("last_seen_at", "desc")
      .execute();
  }

  async insert(row: DeviceRow): Promise<void> {
    await queueInsert(this.db, "devices", row);
  }

  async update(id: string, patch: Partial<DeviceRow>): Promise<void> {
    await queueUpdate(this.db, "devices", id, patch);
  }

  /** The device is no user's signed-in device any more (store/history.ts, trusted history). */
  async forgetConfirmations(environmentId: string, id: string): Promise<void> {
    await this.db.deleteFrom("device_confirmations").where("environment_id", "=", environmentId).where("device_id", "=", id).execute();
  }

  /**
   * The device joins the account once its challenge passes (completed, skipped, overridden): only a device nobody
   * owns, or one of this user's that was detached.
   */
  async admitToAccount(id: string, userId: string, at: number): Promise<void> {
    await this.db
      .updateTable("devices")
      .set({ user_id: userId, status: "attached", attached_at: at, detached_at: null, logout_pending: 0, updated_at: at })
      .where("id", "=", id)
      .where((eb) => eb.or([eb("user_id", "is", null), eb("user_id", "=", userId)]))
      .where((eb) => eb.or([eb("status", "=", "detached"), eb("user_id", "is", null)]))
      .execute();
  }
}
