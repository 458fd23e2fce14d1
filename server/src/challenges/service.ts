// Challenges (SPEC.md 7): issued by a matching challenge policy, run by the hosted app (challenge token) or a
// backend (secret key). Every status change goes through the transition table and a conditional update.
import type {
  Challenge,
  ChallengeStatus,
  ChallengeType,
  ChallengeView,
  Channel,
  Device,
  DevOutboxMessage,
  Language,
  PolicyChallenge,
} from "@tessera/sdk/contract";
import type { Kysely } from "kysely";
import type { Config } from "../config.js";
import { destinationKey, parseEmail, parsePhone } from "../delivery/addresses.js";
import { callbackUrl, callbackValid, type Receipt } from "../delivery/callbacks.js";
import type { CodeDelivery } from "../delivery/index.js";
import { ApiError, badRequest, conflict, notFound, rateLimited } from "../errors.js";
import { newId } from "../ids.js";
import type { ChallengeIssuer, EventSink } from "../pipeline/evaluate.js";
import type { RateLimiter } from "../rate-limit/limiter.js";
import type { ServerKeys } from "../secrets.js";
import { type ChallengeRow, toWireOutboxMessage } from "../store/challenges.js";
import { toWireDevice } from "../store/devices.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import type { Database } from "../store/schema.js";
import { customerIdOf, type UserRow } from "../store/users.js";
import { iso } from "../time.js";
import { codeMatches, hashCode, MAX_SENDS, MAX_VERIFY_ATTEMPTS, maskEmail, maskPhone, newCode, RESEND_COOLDOWN_MS } from "./codes.js";
import { allowedReturnUrl } from "./return-urls.js";
import type { ChallengeTokens } from "./tokens.js";
import { canTransition, isPending, transition } from "./transitions.js";

/** The project's default device limit for account sharing when neither policy nor project sets one. */
export const DEFAULT_DEVICE_LIMIT = 3;
/**
 * Challenges a user may have pending at once (SPEC.md 12): each holds its own code and its own 5 guesses, so more
 * would multiply an attacker's guesses; 3 leaves room for the owner on a phone and a computer besides one stray.
 */
export const MAX_PENDING_CHALLENGES = 3;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

const parseConfig = (row: ChallengeRow): PolicyChallenge => JSON.parse(row.config) as PolicyChallenge;
const parseList = <T>(s: string): T[] => JSON.parse(s) as T[];

export class ChallengeService implements ChallengeIssuer {
  constructor(
    private readonly repos: Repos,
    private readonly config: Config,
    private readonly tokens: ChallengeTokens,
    private readonly delivery: CodeDelivery,
    private readonly events: () => EventSink | undefined,
    /** The devices service's detach: marks the device for logout and emits device.detached. */
    private readonly detachDevice: (environmentId: string, deviceId: string) => Promise<unknown>,
    /** The server's derived keys: code hashes, signed delivery-callback URLs. */
    private readonly keys: Pick<ServerKeys, "codeHash" | "deliveryCallback">,
    /** The shared limiter: sends per recipient and per user, wrong codes per user (SPEC.md 12). */
    private readonly limiter: RateLimiter,
  ) {}

  // ---- issuing (inside the evaluation's transaction) ----

  async admit(db: Kysely<Database>, { input, identity }: Parameters<ChallengeIssuer["admit"]>[1]): Promise<boolean> {
    const userId = identity.user?.id;
    if (!userId) return true;
    await this.repos.challenges.lockUser(db, userId);
    // A newer challenge for the same user and device supersedes a pending one — when the device is this browser's by
    // its own visitor token (or a backend evaluates without a device): a browser matched only by a look-alike
    // fingerprint must not push the owner's challenge out.
    const device = identity.device?.row;
    const token = input.signals.visitor_token;
    if (!device || (token !== undefined && device.visitor_token === token)) {
      for (const old of await this.repos.challenges.pendingFor(input.env.id, userId, device?.id ?? null, db)) {
        const from = old.status as ChallengeStatus;
        await this.repos.challenges.moveIf(old.id, from, transition(from, "override"), input.at, db);
      }
    }
    return (await this.repos.challenges.countPending(input.env.id, userId, input.at, db)) < MAX_PENDING_CHALLENGES;
  }

  async issue(db: Kysely<Database>, args: Parameters<ChallengeIssuer["issue"]>[1]) {
    const { input, evaluationId, identity, decision, policy } = args;
    const at = input.at;
    const userId = identity.user?.id ?? null;
    const deviceId = identity.device?.row.id ?? null;
    const row: ChallengeRow = {
      id: newId("ch"),
      environment_id: input.env.id,
      evaluation_id: evaluationId,
      user_id: userId,
      device_id: deviceId,
      type: policy.type,
      status: "created",
      config: JSON.stringify(policy),
      channels: "[]",
      reasons: JSON.stringify(decision.reasons),
      origin_url: input.signals.url ?? null,
      delivery_status: null,
      delivery_error: null,
      email_verified: 0,
      phone_verified: 0,
      verify_attempts: 0,
      send_count: 0,
      last_sent_at: null,
      code_hash: null,
      code_channel: null,
      code_expires_at: null,
      signup_chosen_at: null,
      expires_at: at + this.config.CHALLENGE_TOKEN_TTL * 1000,
      created_at: at,
      updated_at: at,
    };
    await this.repos.challenges.insert(row, db);
    const token = this.tokens.sign({ c: row.id, e: input.env.id, x: Math.floor(row.expires_at / 1000) });
    const redirect = `${this.config.publicUrl}/challenge/?challenge=${encodeURIComponent(row.id)}&token=${encodeURIComponent(token)}`;
    await this.emit(db, row, "challenge.initiated", identity.user);
    return { id: row.id, status: row.status, type: row.type, redirect };
  }

  // ---- reading ----

  async summary(id: string) {
    const row = await this.repos.challenges.findById(id);
    return row && { id: row.id, status: row.status, type: row.type };
  }

  private async load(env: EnvironmentRecord, id: string): Promise<ChallengeRow> {
    let row = await this.repos.challenges.find(env.id, id);
    if (!row) throw notFound("Challenge");
    // Expiry is applied lazily: a pending challenge past its time fails on its next read.
    if (isPending(row.status as ChallengeStatus) && Date.now() >= row.expires_at) {
      const moved = await this.repos.challenges.updateIf(row.id, [row.status as ChallengeStatus], {
        status: transition(row.status as ChallengeStatus, "expire"),
        updated_at: Date.now(),
      });
      row = moved ?? (await this.repos.challenges.find(env.id, id)) ?? row;
    }
    return row;
  }

  private async user(row: ChallengeRow): Promise<UserRow | undefined> {
    return row.user_id ? this.repos.users.findById(row.user_id) : undefined;
  }

  /** A return URL as the environment allows it now (SPEC.md 12), else undefined: dropped rather than followed. */
  private returnUrl(env: EnvironmentRecord, url: string | null | undefined): string | undefined {
    return allowedReturnUrl(env, url, new URL(this.config.publicUrl).origin);
  }

  actions(row: ChallengeRow): string[] {
    const s = row.status as ChallengeStatus;
    const cfg = parseConfig(row);
    const out: string[] = ["view"];
    if (canTransition(s, "send")) out.push("send");
    if (s === "code_sent") out.push("verify");
    if (s === "verified") out.push("complete");
    if (s === "verified" && row.type === "account_sharing") out.push("kick");
    if (cfg.allow_skip && canTransition(s, "skip")) out.push("skip");
    if (row.type === "account_sharing" && cfg.signup_url && isPending(s)) out.push("signup");
    return out;
  }

  toWire(row: ChallengeRow, user: UserRow | undefined): Challenge {
    const c: Challenge = {
      id: row.id,
      status: row.status as ChallengeStatus,
      type: row.type as Challenge["type"],
      challenge_mode: "service_managed",
      channels: parseList<Channel>(row.channels),
      reasons: parseList<string>(row.reasons),
      actions: this.actions(row),
      evaluation: row.evaluation_id,
      email_verified: row.email_verified === 1,
      phone_verified: row.phone_verified === 1,
      verify_attempts: row.verify_attempts,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
    if (row.delivery_status) c.delivery_status = row.delivery_status as Challenge["delivery_status"];
    if (row.origin_url) c.origin_url = row.origin_url;
    if (user) {
      c.user = { service_id: user.id, ...customerIdOf(user) };
      if (user.email) c.user.email = user.email;
      if (user.phone) c.user.phone = user.phone;
    }
    return c;
  }

  async get(env: EnvironmentRecord, id: string): Promise<Challenge> {
    const row = await this.load(env, id);
    return this.toWire(row, await this.user(row));
  }

  async list(env: EnvironmentRecord, q: { page: number; limit: number; status?: string; user?: string }) {
    let userId: string | undefined;
    if (q.user) {
      const u = await this.repos.users.findByExternal(env.id, q.user);
      if (!u) return { data: [], total: 0, page: q.page, limit: q.limit };
      userId = u.id;
    }
    const { rows, total } = await this.repos.challenges.list(env.id, { page: q.page, limit: q.limit, status: q.status, userId });
    const users = new Map<string, UserRow | undefined>();
    const data: Challenge[] = [];
    for (const r of rows) {
      if (r.user_id && !users.has(r.user_id)) users.set(r.user_id, await this.repos.users.findById(r.user_id));
      data.push(this.toWire(r, r.user_id ? users.get(r.user_id) : undefined));
    }
    return { data, total, page: q.page, limit: q.limit };
  }

  private deviceLimit(env: EnvironmentRecord, cfg: PolicyChallenge): number {
    return cfg.device_limit ?? env.settings.default_device_limit ?? DEFAULT_DEVICE_LIMIT;
  }

  /**
   * The devices signed in to the account, plus the challenged device itself: it joins the account when the
   * challenge passes, so it counts against the device limit and is listed (as "this device") from the start.
   */
  private async attachedDevices(env: EnvironmentRecord, row: ChallengeRow) {
    if (!row.user_id) return [];
    const attached = (await this.repos.devices.listForUser(env.id, row.user_id)).filter((d) => d.status === "attached");
    if (row.device_id && !attached.some((d) => d.id === row.device_id)) {
      const current = await this.repos.devices.find(env.id, row.device_id);
      if (current && (current.user_id === null || current.user_id === row.user_id)) attached.unshift(current);
    }
    return attached;
  }

  /** The challenged device joins the account once the challenge passes (completed or allowed skip). */
  private async admitDevice(db: Kysely<Database>, row: ChallengeRow): Promise<void> {
    if (!row.device_id || !row.user_id) return;
    const at = Date.now();
    await db
      .updateTable("devices")
      .set({ user_id: row.user_id, status: "attached", attached_at: at, detached_at: null, logout_pending: 0, updated_at: at })
      .where("id", "=", row.device_id)
      .where((eb) => eb.or([eb("user_id", "is", null), eb("user_id", "=", row.user_id)]))
      .where((eb) => eb.or([eb("status", "=", "detached"), eb("user_id", "is", null)]))
      .execute();
  }

  private verifiedChannels(row: ChallengeRow): Channel[] {
    const out: Channel[] = [];
    if (row.email_verified) out.push("email");
    if (row.phone_verified) out.push("text");
    return out;
  }

  private availableChannels(row: ChallengeRow, user: UserRow | undefined): Array<{ channel: Channel; destination: string }> {
    const cfg = parseConfig(row);
    const out: Array<{ channel: Channel; destination: string }> = [];
    for (const ch of cfg.channels ?? ["email"]) {
      if (ch === "email" && user?.email) out.push({ channel: "email", destination: maskEmail(user.email) });
      if (ch === "text" && user?.phone) out.push({ channel: "text", destination: maskPhone(user.phone) });
    }
    return out;
  }

  async view(env: EnvironmentRecord, rowOrId: ChallengeRow | string): Promise<ChallengeView> {
    const row = typeof rowOrId === "string" ? await this.load(env, rowOrId) : rowOrId;
    const user = await this.user(row);
    const cfg = parseConfig(row);
    const status = row.status as ChallengeStatus;
    const view: ChallengeView = {
      challenge: this.toWire(row, user),
      available_channels: this.availableChannels(row, user),
      required_channels: cfg.require ?? "any",
      allow_skip:
        Boolean(cfg.allow_skip) && canTransition(status, "skip") !== undefined && (user?.skip_challenge_count ?? 0) < (cfg.skip_limit ?? 3),
      attempts_left: Math.max(0, MAX_VERIFY_ATTEMPTS - row.verify_attempts),
      verified_channels: this.verifiedChannels(row),
      expires_at: iso(row.expires_at),
      project: {
        name: env.projectName,
        ...(env.settings.logo_url ? { logo_url: env.settings.logo_url } : {}),
        ...(env.settings.color ? { color: env.settings.color } : {}),
      },
    };
    const origin = this.returnUrl(env, row.origin_url);
    const success = this.returnUrl(env, cfg.success_url) ?? origin;
    if (success) view.success_url = success;
    // Back to where the user was, never elsewhere: the page URL comes from the browser (SPEC.md 12).
    const back = origin ?? success;
    if (back) view.back_url = back;
    const signup = this.returnUrl(env, cfg.signup_url);
    if (signup) view.signup_url = signup;
    if (row.type === "account_sharing") {
      view.device_limit = this.deviceLimit(env, cfg);
      view.attached_devices = (await this.attachedDevices(env, row)).length;
    }
    if (row.last_sent_at && row.send_count < MAX_SENDS) view.resend_available_at = iso(row.last_sent_at + RESEND_COOLDOWN_MS);
    if (row.code_expires_at != null && status === "code_sent") view.code_expires_at = iso(row.code_expires_at);
    if (row.delivery_error) view.delivery_error = row.delivery_error;
    if (status === "failed") view.failure_reason = row.verify_attempts >= MAX_VERIFY_ATTEMPTS ? "too_many_attempts" : "expired";
    if (status === "overridden") view.failure_reason = "overridden";
    return view;
  }

  // ---- operations ----

  private async move(
    row: ChallengeRow,
    op: Parameters<typeof transition>[1],
    patch: Partial<ChallengeRow> = {},
    db?: Kysely<Database>,
  ): Promise<ChallengeRow> {
    const from = row.status as ChallengeStatus;
    const to = transition(from, op);
    const moved = await this.repos.challenges.updateIf(row.id, [from], { ...patch, status: to, updated_at: Date.now() }, db);
    if (!moved) throw conflict("invalid_transition", "The challenge changed meanwhile; reload it");
    return moved;
  }

  /** The user opened the hosted page: created → presented (later opens change nothing). */
  async open(env: EnvironmentRecord, id: string): Promise<ChallengeView> {
    let row = await this.load(env, id);
    if (row.status === "created") {
      row = await this.repos.db.transaction().execute(async (tx) => {
        const moved = await this.move(row, "open", {}, tx);
        await this.emit(tx, moved, "challenge.viewed");
        return moved;
      });
    }
    return this.view(env, row);
  }

  async send(env: EnvironmentRecord, id: string, channel: Channel, language: Language = "en"): Promise<ChallengeView> {
    const row = await this.load(env, id);
    transition(row.status as ChallengeStatus, "send"); // 409 early for terminal states
    const cfg = parseConfig(row);
    if (!(cfg.channels ?? ["email"]).includes(channel)) throw badRequest(`This challenge does not offer the ${channel} channel`, "channel");
    if (this.verifiedChannels(row).includes(channel)) throw conflict("invalid_transition", `The ${channel} channel is already verified`);
    const user = await this.user(row);
    const to = channel === "email" ? user?.email : user?.phone;
    if (!to) throw badRequest(`The user has no ${channel === "email" ? "email address" : "phone number"} to send a code to`, "channel");
    // Stored before the address rules existed, or by hand: a code goes to one valid destination or nowhere.
    if (!(channel === "email" ? parseEmail(to) : parsePhone(to)))
      throw badRequest(`The user's ${channel === "email" ? "email address" : "phone number"} is not a valid destination`, "channel");
    const at = Date.now();
    if (row.send_count >= MAX_SENDS)
      throw new ApiError(429, "rate_limited", "Too many codes sent for this challenge", undefined, {
        "retry-after": String(Math.ceil((row.expires_at - at) / 1000)),
      });
    if (row.last_sent_at && at - row.last_sent_at < RESEND_COOLDOWN_MS) {
      const wait = Math.ceil((row.last_sent_at + RESEND_COOLDOWN_MS - at) / 1000);
      throw new ApiError(429, "rate_limited", `Wait ${wait} s before asking for another code`, undefined, { "retry-after": String(wait) });
    }
    // Beyond this challenge's own limits: codes per destination and per user, across challenges and instances.
    const caps = await this.limiter.hitMany([
      { key: `code-to:${destinationKey(channel, to)}`, limit: this.config.CODE_SENDS_PER_RECIPIENT, windowMs: HOUR },
      ...(row.user_id ? [{ key: `code-user:${row.user_id}`, limit: this.config.CODE_SENDS_PER_USER, windowMs: DAY }] : []),
    ]);
    const capped = caps.filter((c) => !c.allowed);
    if (capped.length) throw rateLimited(Math.max(...capped.map((c) => c.retryAfterMs)) / 1000, "Too many codes sent: try again later");
    const code = newCode();
    const channels = parseList<Channel>(row.channels);
    if (channels[channels.length - 1] !== channel) channels.push(channel);
    // Record the code (hashed) and the pending delivery first: a crash mid-send leaves an honest "pending".
    let moved = await this.move(row, "send", {
      code_hash: hashCode(this.keys.codeHash, row.id, code),
      code_channel: channel,
      code_expires_at: at + this.config.CHALLENGE_CODE_TTL_MS,
      send_count: row.send_count + 1,
      last_sent_at: at,
      channels: JSON.stringify(channels),
      delivery_status: "pending",
      delivery_error: null,
    });
    await this.repos.durable();
    const result = await this.delivery.send({
      channel,
      to,
      code,
      language,
      type: row.type as ChallengeType,
      project: { name: env.projectName, logo_url: env.settings.logo_url, color: env.settings.color },
      statusCallback:
        channel === "text" ? callbackUrl(this.config.publicUrl, this.keys.deliveryCallback, row.id, moved.send_count) : undefined,
    });
    if ("error" in result) {
      moved =
        (await this.repos.challenges.updateIf(row.id, ["code_sent"], {
          delivery_status: result.status,
          delivery_error: result.error,
          updated_at: Date.now(),
        })) ?? moved;
      throw new ApiError(502, "delivery_failed", `The code could not be delivered: ${result.error}`, "channel");
    }
    const { status: delivered, outbox } = result;
    await this.repos.db.transaction().execute(async (tx) => {
      if (outbox) {
        await this.repos.challenges.addToOutbox(
          { id: newId("msg"), environment_id: env.id, challenge_id: row.id, ...outbox, created_at: Date.now() },
          tx,
        );
      }
      moved =
        (await this.repos.challenges.updateIf(row.id, ["code_sent"], { delivery_status: delivered, updated_at: Date.now() }, tx)) ?? moved;
      await this.emit(tx, moved, "challenge.pending", user);
    });
    return this.view(env, moved);
  }

  async verify(env: EnvironmentRecord, id: string, code: string): Promise<ChallengeView> {
    const row = await this.load(env, id);
    if (row.status !== "code_sent") transition(row.status as ChallengeStatus, "verify");
    // Wrong codes per user across challenges (SPEC.md 12): each attempt is counted first and given back if right, so
    // that once the budget is spent no answer, right or wrong, tells a guesser anything.
    const wrongKey = row.user_id ? `wrong-code:${row.user_id}` : undefined;
    if (wrongKey) {
      const budget = await this.limiter.hit(wrongKey, this.config.WRONG_CODES_PER_USER, HOUR);
      if (!budget.allowed) throw rateLimited(budget.retryAfterMs / 1000, "Too many wrong codes for this account: try again later");
    }
    const at = Date.now();
    const counted = await this.repos.challenges.countAttempt(row.id, at);
    if (!counted) throw conflict("invalid_transition", "The challenge changed meanwhile; reload it");
    if (counted.verify_attempts > MAX_VERIFY_ATTEMPTS) {
      await this.repos.challenges.updateIf(row.id, ["code_sent"], { status: "failed", updated_at: at });
      throw new ApiError(409, "too_many_attempts", "Too many wrong codes: this challenge has failed");
    }
    if (!counted.code_hash || !codeMatches(this.keys.codeHash, row.id, code, counted.code_hash)) {
      if (counted.verify_attempts >= MAX_VERIFY_ATTEMPTS) {
        await this.repos.challenges.updateIf(row.id, ["code_sent"], { status: transition("code_sent", "fail"), updated_at: at });
        throw new ApiError(409, "too_many_attempts", "Too many wrong codes: this challenge has failed");
      }
      const left = MAX_VERIFY_ATTEMPTS - counted.verify_attempts;
      throw new ApiError(400, "invalid_code", `Wrong code: ${left} attempt${left === 1 ? "" : "s"} left`, "code");
    }
    if (wrongKey) await this.limiter.refund(wrongKey, HOUR);
    if (counted.code_expires_at != null && at > counted.code_expires_at)
      throw new ApiError(400, "code_expired", "This code has expired: ask for a new one", "code");
    const channel = counted.code_channel as Channel;
    const patch: Partial<ChallengeRow> = { code_hash: null, code_expires_at: null };
    if (channel === "email") patch.email_verified = 1;
    if (channel === "text") patch.phone_verified = 1;
    const moved = await this.repos.db.transaction().execute(async (tx) => {
      const m = await this.move(counted, "verify", patch, tx);
      if (m.user_id) {
        await tx
          .updateTable("users")
          .set(channel === "email" ? { email_verified: 1, updated_at: at } : { phone_verified: 1, updated_at: at })
          .where("id", "=", m.user_id)
          .execute();
      }
      return m;
    });
    return this.view(env, moved);
  }

  async complete(env: EnvironmentRecord, id: string, outcome: "complete" | "skip" = "complete"): Promise<ChallengeView> {
    const row = await this.load(env, id);
    const cfg = parseConfig(row);
    const user = await this.user(row);
    if (outcome === "skip") {
      if (!cfg.allow_skip) throw new ApiError(403, "forbidden", "This challenge cannot be skipped");
      if ((user?.skip_challenge_count ?? 0) >= (cfg.skip_limit ?? 3))
        throw new ApiError(403, "forbidden", "The skip limit for this user is reached");
      const moved = await this.repos.db.transaction().execute(async (tx) => {
        const m = await this.move(row, "skip", {}, tx);
        await this.admitDevice(tx, m);
        if (user)
          await tx
            .updateTable("users")
            .set({ skip_challenge_count: user.skip_challenge_count + 1, updated_at: Date.now() })
            .where("id", "=", user.id)
            .execute();
        await this.emit(tx, m, "challenge.skipped", user);
        return m;
      });
      return this.view(env, moved);
    }
    transition(row.status as ChallengeStatus, "complete");
    if (cfg.require === "all") {
      const verified = this.verifiedChannels(row);
      const missing = this.availableChannels(row, user).filter((c) => !verified.includes(c.channel));
      if (missing.length)
        throw conflict("invalid_transition", `Verify ${missing.map((m) => m.channel).join(" and ")} too before completing`);
    }
    if (row.type === "account_sharing") {
      const limit = this.deviceLimit(env, cfg);
      const attached = (await this.attachedDevices(env, row)).length;
      if (attached > limit)
        throw conflict(
          "over_device_limit",
          `${attached} devices are signed in; log out ${attached - limit} more to continue (limit ${limit})`,
        );
    }
    const moved = await this.repos.db.transaction().execute(async (tx) => {
      const m = await this.move(row, "complete", {}, tx);
      await this.admitDevice(tx, m);
      // The user proved who they are: a provisional user is an account (SPEC.md 13).
      if (m.user_id) await this.repos.users.confirm(m.user_id, tx);
      await this.emit(tx, m, "challenge.completed", user);
      return m;
    });
    return this.view(env, moved);
  }

  /**
   * An admin (secret key) resolves a pending challenge instead of the user, e.g. support who verified them another
   * way: → overridden, the challenged device joins the account as on completion, and challenge.overridden is emitted
   * (with the reason). The evaluation's own verdict is not changed: the backend accepts `completed` only, and the
   * user's next evaluation from that device is no longer from an unknown device.
   */
  async override(env: EnvironmentRecord, id: string, reason?: string): Promise<Challenge> {
    const row = await this.load(env, id);
    const user = await this.user(row);
    const moved = await this.repos.db.transaction().execute(async (tx) => {
      const m = await this.move(row, "override", {}, tx);
      await this.admitDevice(tx, m);
      await this.emit(tx, m, "challenge.overridden", user, reason ? { reason } : {});
      return m;
    });
    return this.toWire(moved, user);
  }

  /**
   * The devices of the challenged account. `holder: "link"` is the hosted app with the challenge link: it may list
   * them only once a code is verified (SPEC.md 12); a secret key always may.
   */
  async devices(env: EnvironmentRecord, id: string, holder: "link" | "secret" = "secret"): Promise<{ data: Device[] }> {
    const row = await this.load(env, id);
    if (holder === "link" && this.verifiedChannels(row).length === 0)
      throw new ApiError(403, "forbidden", "Verify the code before listing the account's devices");
    if (!row.user_id) return { data: [] };
    const user = await this.user(row);
    const at = Date.now();
    const rows = await this.attachedDevices(env, row);
    return { data: rows.map((d) => ({ ...toWireDevice(d, user?.external_id, at), current: d.id === row.device_id })) };
  }

  /** The verified owner logs one of the user's devices out (account sharing). */
  async kick(env: EnvironmentRecord, id: string, deviceId: string): Promise<{ data: Device[] }> {
    const row = await this.load(env, id);
    if (row.type !== "account_sharing") throw conflict("invalid_transition", "Only account-sharing challenges can log devices out");
    if (row.status !== "verified")
      throw conflict("invalid_transition", `Verify the code before logging devices out (challenge is ${row.status})`);
    if (deviceId === row.device_id) throw badRequest("This is the device you are using: log out another one", "device");
    const device = await this.repos.devices.find(env.id, deviceId);
    if (!device || device.user_id !== row.user_id) throw notFound("Device");
    if (device.status === "attached") await this.detachDevice(env.id, device.id);
    return this.devices(env, id, "link");
  }

  /** Records a conversion intent in the caller's transaction (set by services.ts: the users service's markers). */
  onSignupChosen?: (
    db: Kysely<Database>,
    m: { environmentId: string; deviceId: string; fromUserId: string | null; challengeId: string },
  ) => Promise<void>;

  /** The sharer chose "create my own account": remember it (a later signup from this device is user.converted). */
  async chooseSignup(env: EnvironmentRecord, id: string): Promise<{ redirect: string }> {
    const row = await this.load(env, id);
    const signupUrl = this.returnUrl(env, parseConfig(row).signup_url);
    if (row.type !== "account_sharing" || !signupUrl) throw conflict("invalid_transition", "This challenge offers no account creation");
    if (!isPending(row.status as ChallengeStatus)) throw conflict("invalid_transition", `The challenge is ${row.status}`);
    await this.repos.db.transaction().execute(async (tx) => {
      await this.repos.challenges.updateIf(
        row.id,
        [row.status as ChallengeStatus],
        { signup_chosen_at: Date.now(), updated_at: Date.now() },
        tx,
      );
      if (row.device_id && this.onSignupChosen) {
        await this.onSignupChosen(tx, { environmentId: env.id, deviceId: row.device_id, fromUserId: row.user_id, challengeId: row.id });
      }
    });
    return { redirect: signupUrl };
  }

  /**
   * The SMS provider's report on one send (delivery/callbacks.ts): moves delivery_status to delivered, bounced or
   * failed. Answers false for a URL that was not signed for that send; a report on an older send changes nothing.
   */
  async receipt(challengeId: string, send: number, token: string, receipt: Receipt): Promise<boolean> {
    if (!this.receiptUrlValid(challengeId, send, token)) return false;
    await this.repos.challenges.setDeliveryStatus(
      challengeId,
      send,
      receipt,
      receipt === "delivered" ? null : "The carrier could not deliver the text message",
    );
    return true;
  }

  receiptUrlValid(challengeId: string, send: number, token: string): boolean {
    return callbackValid(this.keys.deliveryCallback, challengeId, send, token);
  }

  /** The environment's dev outbox, newest first (development servers without SMTP_URL only). */
  async outbox(env: EnvironmentRecord): Promise<DevOutboxMessage[]> {
    return (await this.repos.challenges.outbox(env.id)).map(toWireOutboxMessage);
  }

  private async emit(
    db: Kysely<Database>,
    row: ChallengeRow,
    event: string,
    user?: UserRow,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const sink = this.events();
    if (!sink) return;
    const u = user ?? (row.user_id ? await db.selectFrom("users").selectAll().where("id", "=", row.user_id).executeTakeFirst() : undefined);
    await sink.emit(db, row.environment_id, event, { challenge: this.toWire(row, u), ...(u ? { account: u.external_id } : {}), ...extra });
  }
}
