// The wire side of challenges (docs/challenges.md): a stored challenge as the API answers it (Challenge), as the hosted app
// shows it (ChallengeView), and as webhook payloads carry it. Reads only; no status changes here.
import type { Challenge, ChallengeStatus, ChallengeView, Channel, PolicyChallenge } from "@tessera/sdk/contract";
import { projectDeviceLimit } from "../policies/device-limit.js";
import type { ChallengeRow } from "../store/challenges.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { iso } from "../time.js";
import { customerIdOf } from "../wire/users.js";
import { MAX_SENDS, MAX_VERIFY_ATTEMPTS, maskEmail, maskPhone, RESEND_COOLDOWN_MS } from "./codes.js";
import { skipLimit } from "./limits.js";
import { allowedReturnUrl } from "./return-urls.js";
import { canTransition, isPending } from "./transitions.js";

export const parseConfig = (row: ChallengeRow): PolicyChallenge => JSON.parse(row.config) as PolicyChallenge;
export const parseList = <T>(s: string): T[] => JSON.parse(s) as T[];

export class ChallengeViews {
  constructor(
    private readonly repos: Repos,
    /** PUBLIC_URL: return URLs on its own origin are always allowed. */
    private readonly publicUrl: string,
  ) {}

  async user(row: ChallengeRow): Promise<UserRow | undefined> {
    return row.user_id ? this.repos.users.findById(row.user_id) : undefined;
  }
  /** A return URL as the environment allows it now (docs/security.md), else undefined: dropped rather than followed. */
  returnUrl(env: EnvironmentRecord, url: string | null | undefined): string | undefined {
    return allowedReturnUrl(env, url, new URL(this.publicUrl).origin);
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
  deviceLimit(env: EnvironmentRecord, cfg: PolicyChallenge): number {
    return cfg.device_limit ?? projectDeviceLimit(env.settings);
  }
  /**
   * The devices signed in to the account, plus the challenged device itself: it joins the account when the
   * challenge passes, so it counts against the device limit and is listed (as "this device") from the start.
   */
  async attachedDevices(env: EnvironmentRecord, row: ChallengeRow) {
    if (!row.user_id) return [];
    const attached = (await this.repos.devices.listForUser(env.id, row.user_id)).filter((d) => d.status === "attached");
    if (row.device_id && !attached.some((d) => d.id === row.device_id)) {
      const current = await this.repos.devices.find(env.id, row.device_id);
      if (current && (current.user_id === null || current.user_id === row.user_id)) attached.unshift(current);
    }
    return attached;
  }
  verifiedChannels(row: ChallengeRow): Channel[] {
    const out: Channel[] = [];
    if (row.email_verified) out.push("email");
    if (row.phone_verified) out.push("text");
    return out;
  }
  availableChannels(row: ChallengeRow, user: UserRow | undefined): Array<{ channel: Channel; destination: string }> {
    const cfg = parseConfig(row);
    const out: Array<{ channel: Channel; destination: string }> = [];
    for (const ch of cfg.channels ?? ["email"]) {
      if (ch === "email" && user?.email) out.push({ channel: "email", destination: maskEmail(user.email) });
      if (ch === "text" && user?.phone) out.push({ channel: "text", destination: maskPhone(user.phone) });
    }
    return out;
  }
  /** What the hosted app shows of a challenge (ChallengeView): its state, channels, limits, return URLs. */
  async view(env: EnvironmentRecord, row: ChallengeRow): Promise<ChallengeView> {
    const user = await this.user(row);
    const cfg = parseConfig(row);
    const status = row.status as ChallengeStatus;
    const view: ChallengeView = {
      challenge: this.toWire(row, user),
      available_channels: this.availableChannels(row, user),
      required_channels: cfg.require ?? "any",
      allow_skip:
        Boolean(cfg.allow_skip) && canTransition(status, "skip") !== undefined && (user?.skip_challenge_count ?? 0) < skipLimit(cfg),
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
    // Back to where the user was, never elsewhere: the page URL comes from the browser (docs/security.md).
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

  /** The payload of a `challenge.*` webhook event: the challenge, and the account it is about. */
  async eventData(row: ChallengeRow, user?: UserRow): Promise<Record<string, unknown>> {
    const u = user ?? (await this.user(row));
    return { challenge: this.toWire(row, u), ...(u ? { account: u.external_id } : {}) };
  }
}
