// Challenges (docs/challenges.md): issued by a matching challenge policy, run by the hosted app (challenge token) or a
// backend (secret key). This file holds the operations; every status change goes through the transition table and a
// conditional update (lifecycle.ts); the wire mapping is wire.ts, the code sends code-sender.ts, limits limits.ts.
import type { Challenge, ChallengeStatus, ChallengeView, Channel, Device, DevOutboxMessage, Language } from "@tessera/sdk/contract";
import type { Config } from "../config.js";
import { callbackValid, type Receipt } from "../delivery/callbacks.js";
import type { CodeDelivery } from "../delivery/index.js";
import { ApiError, badRequest, conflict, notFound } from "../errors.js";
import { withLastPlace } from "../geo/place.js";
import { newId } from "../ids.js";
import type { ChallengeIssuer, EventSink } from "../pipeline/ports.js";
import type { RateLimiter } from "../rate-limit/limiter.js";
import type { ServerKeys } from "../secrets.js";
import type { ChallengeRow, DevOutboxRow } from "../store/challenges.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { toWireOutboxMessage } from "../wire/dev-outbox.js";
import { toWireDevice } from "../wire/devices.js";
import { challengeSource, refuseIfSpent, sourceColumns, wrongCodeBudgets } from "./budgets.js";
import { CodeSender } from "./code-sender.js";
import { codeMatches, MAX_VERIFY_ATTEMPTS } from "./codes.js";
import { expireIfDue, moveChallenge } from "./lifecycle.js";
import { MAX_PENDING_CHALLENGES, skipLimit } from "./limits.js";
import type { ChallengeTokens } from "./tokens.js";
import { INITIAL_STATUS, isPending, transition } from "./transitions.js";
import { ChallengeViews, parseConfig } from "./wire.js";

export class ChallengeService implements ChallengeIssuer {
  constructor(
    private readonly repos: Repos,
    private readonly config: Config,
    private readonly tokens: ChallengeTokens,
    readonly delivery: CodeDelivery,
    private readonly events: EventSink,
    /** The devices service's detach: marks the device for logout and emits device.detached. */
    private readonly detachDevice: (environmentId: string, deviceId: string) => Promise<unknown>,
    /** The users service: records, in the caller's transaction, that a sharer chose to create an account. */
    private readonly markConversionIntent: (m: {
      environmentId: string;
      deviceId: string;
      fromUserId: string | null;
      challengeId: string;
    }) => Promise<void>,
    /** The server's derived keys: code hashes, signed delivery-callback URLs. */
    private readonly keys: Pick<ServerKeys, "codeHash" | "deliveryCallback">,
    /** The shared limiter: the budgets of sends and wrong codes (budgets.ts). */
    private readonly limiter: RateLimiter,
  ) {
    this.views = new ChallengeViews(repos, config.publicUrl);
    this.sender = new CodeSender(repos, config, delivery, events, this.views, keys, limiter);
  }

  /** The wire side: Challenge, ChallengeView and event payloads (wire.ts). */
  private readonly views: ChallengeViews;
  /** Code sends (code-sender.ts). */
  private readonly sender: CodeSender;

  // ---- issuing (inside the evaluation's transaction) ----

  async admit({ input, identity, decision }: Parameters<ChallengeIssuer["admit"]>[0]): Promise<boolean> {
    const userId = identity.user?.id;
    if (!userId) return true;
    await this.repos.challenges.lockUser(userId);
    // A newer challenge for the same user and device supersedes a pending one — when the device is this browser's by
    // its own visitor token (or a backend evaluates without a device): a browser matched only by a look-alike
    // fingerprint must not push the owner's challenge out.
    const device = identity.device?.row;
    const token = input.signals.visitor_token;
    if (!device || (token !== undefined && device.visitor_token === token)) {
      for (const old of await this.repos.challenges.pendingFor(input.env.id, userId, device?.id ?? null)) {
        const from = old.status as ChallengeStatus;
        await this.repos.challenges.moveIf(old.id, from, transition(from, "override"), input.at);
      }
    }
    // Counted per source (budgets.ts): a stranger's challenges fill the stranger's budget, never the owner's.
    const source = challengeSource(input, identity, decision);
    return (await this.repos.challenges.countPendingFrom(input.env.id, userId, source, input.at)) < MAX_PENDING_CHALLENGES;
  }

  async issue(args: Parameters<ChallengeIssuer["issue"]>[0]) {
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
      status: INITIAL_STATUS,
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
      ...sourceColumns(challengeSource(input, identity, decision)),
      expires_at: at + this.config.CHALLENGE_TOKEN_TTL * 1000,
      created_at: at,
      updated_at: at,
    };
    await this.repos.challenges.insert(row);
    const token = this.tokens.sign({ c: row.id, e: input.env.id, x: Math.floor(row.expires_at / 1000) });
    const redirect = `${this.config.publicUrl}/challenge/?challenge=${encodeURIComponent(row.id)}&token=${encodeURIComponent(token)}`;
    await this.emit(row, "challenge.initiated", identity.user);
    return { id: row.id, status: row.status, type: row.type, redirect };
  }

  // ---- reading ----

  async summary(id: string) {
    const row = await this.repos.challenges.findById(id);
    return row && { id: row.id, status: row.status, type: row.type };
  }

  private async load(env: EnvironmentRecord, id: string): Promise<ChallengeRow> {
    const row = await this.repos.challenges.find(env.id, id);
    if (!row) throw notFound("Challenge");
    return expireIfDue(this.repos, row);
  }

  async get(env: EnvironmentRecord, id: string): Promise<Challenge> {
    const row = await this.load(env, id);
    return this.views.toWire(row, await this.views.user(row));
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
      data.push(this.views.toWire(r, r.user_id ? users.get(r.user_id) : undefined));
    }
    return { data, total, page: q.page, limit: q.limit };
  }

  /** The challenged device joins the account once the challenge passes (completed or allowed skip). */
  private async admitDevice(row: ChallengeRow): Promise<void> {
    if (!row.device_id || !row.user_id) return;
    await this.repos.devices.admitToAccount(row.device_id, row.user_id, Date.now());
  }

  async view(env: EnvironmentRecord, rowOrId: ChallengeRow | string): Promise<ChallengeView> {
    return this.views.view(env, typeof rowOrId === "string" ? await this.load(env, rowOrId) : rowOrId);
  }

  // ---- operations ----

  /** The user opened the hosted page: created → presented (later opens change nothing). */
  async open(env: EnvironmentRecord, id: string): Promise<ChallengeView> {
    let row = await this.load(env, id);
    if (row.status === "created") {
      row = await this.repos.transaction(async () => {
        const moved = await moveChallenge(this.repos, row, "open", {});
        await this.emit(moved, "challenge.viewed");
        return moved;
      });
    }
    return this.view(env, row);
  }

  /** `requesterIp`: the client's address when the challenge link asks (a backend's secret-key send is not one client). */
  async send(
    env: EnvironmentRecord,
    id: string,
    channel: Channel,
    language: Language = "en",
    requesterIp?: string,
  ): Promise<ChallengeView> {
    return this.view(env, await this.sender.send(env, await this.load(env, id), channel, language, requesterIp));
  }

  async verify(env: EnvironmentRecord, id: string, code: string): Promise<ChallengeView> {
    const row = await this.load(env, id);
    if (row.status !== "code_sent") transition(row.status as ChallengeStatus, "verify");
    // Wrong codes per user and source across challenges (budgets.ts): each attempt is counted first and given back if
    // right, so that once the budget is spent no answer, right or wrong, tells a guesser anything.
    const budgets = wrongCodeBudgets(this.config, row);
    if (budgets.length) refuseIfSpent(budgets, await this.limiter.hitMany(budgets));
    const at = Date.now();
    const counted = await this.repos.challenges.countAttempt(row.id, at);
    if (!counted) throw conflict("invalid_transition", "The challenge changed meanwhile; reload it");
    if (counted.verify_attempts > MAX_VERIFY_ATTEMPTS) {
      await this.repos.challenges.updateIf(row.id, ["code_sent"], { status: transition("code_sent", "fail"), updated_at: at });
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
    for (const b of budgets) await this.limiter.refund(b.key, b.windowMs);
    if (counted.code_expires_at != null && at > counted.code_expires_at)
      throw new ApiError(400, "code_expired", "This code has expired: ask for a new one", "code");
    const channel = counted.code_channel as Channel;
    const patch: Partial<ChallengeRow> = { code_hash: null, code_expires_at: null };
    if (channel === "email") patch.email_verified = 1;
    if (channel === "text") patch.phone_verified = 1;
    const moved = await this.repos.transaction(async () => {
      const m = await moveChallenge(this.repos, counted, "verify", patch);
      if (m.user_id) await this.repos.users.markVerified(m.user_id, channel, at);
      // The evaluation it challenged, and with it its device, is the user's own (trusted history, store/history.ts).
      await this.repos.evaluations.confirm(env.id, m.evaluation_id, at);
      return m;
    });
    return this.view(env, moved);
  }

  async complete(env: EnvironmentRecord, id: string, outcome: "complete" | "skip" = "complete"): Promise<ChallengeView> {
    const row = await this.load(env, id);
    const cfg = parseConfig(row);
    const user = await this.views.user(row);
    if (outcome === "skip") {
      if (!cfg.allow_skip) throw new ApiError(403, "forbidden", "This challenge cannot be skipped");
      if ((user?.skip_challenge_count ?? 0) >= skipLimit(cfg))
        throw new ApiError(403, "forbidden", "The skip limit for this user is reached");
      const moved = await this.repos.transaction(async () => {
        const m = await moveChallenge(this.repos, row, "skip", {});
        await this.admitDevice(m);
        if (user) await this.repos.users.countSkip(user.id, Date.now());
        await this.emit(m, "challenge.skipped", user);
        return m;
      });
      return this.view(env, moved);
    }
    transition(row.status as ChallengeStatus, "complete");
    if (cfg.require === "all") {
      const verified = this.views.verifiedChannels(row);
      const missing = this.views.availableChannels(row, user).filter((c) => !verified.includes(c.channel));
      if (missing.length)
        throw conflict("invalid_transition", `Verify ${missing.map((m) => m.channel).join(" and ")} too before completing`);
    }
    if (row.type === "account_sharing") {
      const limit = this.views.deviceLimit(env, cfg);
      const attached = (await this.views.attachedDevices(env, row)).length;
      if (attached > limit)
        throw conflict(
          "over_device_limit",
          `${attached} devices are signed in; log out ${attached - limit} more to continue (limit ${limit})`,
        );
    }
    const moved = await this.repos.transaction(async () => {
      const m = await moveChallenge(this.repos, row, "complete", {});
      await this.admitDevice(m);
      // The user proved who they are: a provisional user is an account (docs/identity.md).
      if (m.user_id) await this.repos.users.confirm(m.user_id);
      await this.emit(m, "challenge.completed", user);
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
    const user = await this.views.user(row);
    const moved = await this.repos.transaction(async () => {
      const m = await moveChallenge(this.repos, row, "override", {});
      await this.admitDevice(m);
      await this.emit(m, "challenge.overridden", user, reason ? { reason } : {});
      return m;
    });
    return this.views.toWire(moved, user);
  }

  /**
   * The devices of the challenged account. `holder: "link"` is the hosted app with the challenge link: it may list
   * them only once a code is verified (docs/security.md); a secret key always may.
   */
  async devices(env: EnvironmentRecord, id: string, holder: "link" | "secret" = "secret"): Promise<{ data: Device[] }> {
    const row = await this.load(env, id);
    if (holder === "link" && this.views.verifiedChannels(row).length === 0)
      throw new ApiError(403, "forbidden", "Verify the code before listing the account's devices");
    if (!row.user_id) return { data: [] };
    const user = await this.views.user(row);
    const at = Date.now();
    const rows = await this.views.attachedDevices(env, row);
    return { data: rows.map((d) => ({ ...withLastPlace(toWireDevice(d, user?.external_id, at)), current: d.id === row.device_id })) };
  }

  /** A challenge whose verified owner may log the account's devices out (account sharing). */
  private async kickable(env: EnvironmentRecord, id: string): Promise<ChallengeRow> {
    const row = await this.load(env, id);
    if (row.type !== "account_sharing") throw conflict("invalid_transition", "Only account-sharing challenges can log devices out");
    if (row.status !== "verified")
      throw conflict("invalid_transition", `Verify the code before logging devices out (challenge is ${row.status})`);
    return row;
  }

  /** The verified owner logs one of the user's devices out (account sharing). */
  async kick(env: EnvironmentRecord, id: string, deviceId: string): Promise<{ data: Device[] }> {
    const row = await this.kickable(env, id);
    if (deviceId === row.device_id) throw badRequest("This is the device you are using: log out another one", "device");
    const device = await this.repos.devices.find(env.id, deviceId);
    if (!device || device.user_id !== row.user_id) throw notFound("Device");
    if (device.status === "attached") await this.detachDevice(env.id, device.id);
    return this.devices(env, id, "link");
  }

  /**
   * "Log out all other devices": every device the account's list counts but the one the challenge was opened from,
   * each detached as a kick detaches it (device.detached; its SDK's on_logout at its next call).
   */
  async kickOthers(env: EnvironmentRecord, id: string): Promise<{ data: Device[] }> {
    const row = await this.kickable(env, id);
    for (const device of await this.views.attachedDevices(env, row)) {
      if (device.id !== row.device_id && device.status === "attached") await this.detachDevice(env.id, device.id);
    }
    return this.devices(env, id, "link");
  }

  /** The sharer chose "create my own account": remember it (a later signup from this device is user.converted). */
  async chooseSignup(env: EnvironmentRecord, id: string): Promise<{ redirect: string }> {
    const row = await this.load(env, id);
    const signupUrl = this.views.returnUrl(env, parseConfig(row).signup_url);
    if (row.type !== "account_sharing" || !signupUrl) throw conflict("invalid_transition", "This challenge offers no account creation");
    if (!isPending(row.status as ChallengeStatus)) throw conflict("invalid_transition", `The challenge is ${row.status}`);
    const opened = row.device_id ? await this.repos.evaluations.find(env.id, row.evaluation_id) : undefined;
    const byOwnToken = opened !== undefined && !opened.pending_token;
    await this.repos.transaction(async () => {
      await this.repos.challenges.updateIf(row.id, [row.status as ChallengeStatus], {
        signup_chosen_at: Date.now(),
        updated_at: Date.now(),
      });
      // Only on a device the challenge's browser was found by its own visitor token. A device only recognised by its
      // components (`pending_token`: anyone who collected the owner's components on a page can present them) is the
      // owner's, not shown to be this browser: marking it would make the owner's own later sign-up a "converted sharer".
      if (row.device_id && byOwnToken) {
        await this.markConversionIntent({ environmentId: env.id, deviceId: row.device_id, fromUserId: row.user_id, challengeId: row.id });
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

  /** The newest dev-outbox messages of every development environment, with their project's name (the demo's page). */
  developmentOutbox(): Promise<Array<DevOutboxRow & { project: string }>> {
    return this.repos.challenges.developmentOutbox();
  }

  /** The environment's dev outbox, newest first (development servers without SMTP_URL only). */
  async outbox(env: EnvironmentRecord): Promise<DevOutboxMessage[]> {
    return (await this.repos.challenges.outbox(env.id)).map(toWireOutboxMessage);
  }

  private async emit(row: ChallengeRow, event: string, user?: UserRow, extra: Record<string, unknown> = {}): Promise<void> {
    await this.events.emit(row.environment_id, event, { ...(await this.views.eventData(row, user)), ...extra });
  }
}
