// Sending a challenge's code (docs/challenges.md, docs/security.md): the checks before a send (channel offered, destination
// valid, a text's country allowed), the challenge's own resend limits claimed in one conditional update (so that one
// of concurrent resends sends), then the budgets of budgets.ts: per recipient and per user for the challenge's source,
// per client IP, per project; then the code recorded (hashed) with a "pending" delivery and committed before the send,
// so a crash mid-send leaves an honest state (recovery.ts); then the provider's outcome and challenge.pending. The send
// is awaited: the answer says whether the code went out (502 otherwise, and a send the transport failed gives its
// budgets back).
import type { ChallengeStatus, ChallengeType, Channel, Language } from "@tessera/sdk/contract";
import type { Config } from "../config.js";
import { destinationKey, parseEmail, parsePhone, phoneCountry } from "../delivery/addresses.js";
import { callbackUrl } from "../delivery/callbacks.js";
import { type CodeDelivery, SendAbandoned } from "../delivery/index.js";
import { ApiError, badRequest, conflict } from "../errors.js";
import { newId } from "../ids.js";
import type { EventSink } from "../pipeline/ports.js";
import type { RateLimiter } from "../rate-limit/limiter.js";
import type { ServerKeys } from "../secrets.js";
import type { ChallengeRow } from "../store/challenges.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { refuseIfSpent, sendBudgets } from "./budgets.js";
import { hashCode, MAX_SENDS, newCode, RESEND_COOLDOWN_MS } from "./codes.js";
import { moveChallenge } from "./lifecycle.js";
import { recoverAbandonedSend } from "./recovery.js";
import { transition } from "./transitions.js";
import { type ChallengeViews, parseConfig, parseList } from "./wire.js";

/** 429 when the challenge's own resend limits refuse a send now: its sends all made, or the cooldown not over. */
function refuseResend(row: ChallengeRow, at: number): void {
  if (row.send_count >= MAX_SENDS)
    throw new ApiError(429, "rate_limited", "Too many codes sent for this challenge", undefined, {
      "retry-after": String(Math.max(1, Math.ceil((row.expires_at - at) / 1000))),
    });
  if (row.last_sent_at && at - row.last_sent_at < RESEND_COOLDOWN_MS) {
    const wait = Math.max(1, Math.ceil((row.last_sent_at + RESEND_COOLDOWN_MS - at) / 1000));
    throw new ApiError(429, "rate_limited", `Wait ${wait} s before asking for another code`, undefined, { "retry-after": String(wait) });
  }
}

export class CodeSender {
  constructor(
    private readonly repos: Repos,
    private readonly config: Config,
    private readonly delivery: CodeDelivery,
    private readonly events: EventSink,
    private readonly views: ChallengeViews,
    /** The server's derived keys: code hashes, signed delivery-callback URLs. */
    private readonly keys: Pick<ServerKeys, "codeHash" | "deliveryCallback">,
    /** The shared limiter: the budgets a send spends (budgets.ts). */
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * The server stopped while the provider had not answered (SendAbandoned): this process knows the send never finished,
   * so it records it as interrupted now (recovery.ts) rather than leaving it for the recovery's deadline. Rethrows.
   */
  private async abandoned(id: string, sentAt: number, e: unknown): Promise<never> {
    if (e instanceof SendAbandoned) await recoverAbandonedSend(this.repos, id, sentAt).catch(() => {});
    throw e;
  }

  /**
   * Sends a new code for `row` over `channel`; answers the challenge after the send. `requesterIp`: the client's
   * address when the challenge link asks, for the per-IP cap.
   */
  async send(env: EnvironmentRecord, row: ChallengeRow, channel: Channel, language: Language, requesterIp?: string): Promise<ChallengeRow> {
    transition(row.status as ChallengeStatus, "send"); // 409 early for terminal states
    const cfg = parseConfig(row);
    if (!(cfg.channels ?? ["email"]).includes(channel)) throw badRequest(`This challenge does not offer the ${channel} channel`, "channel");
    if (this.views.verifiedChannels(row).includes(channel))
      throw conflict("invalid_transition", `The ${channel} channel is already verified`);
    const user = await this.views.user(row);
    const to = channel === "email" ? user?.email : user?.phone;
    if (!to) throw badRequest(`The user has no ${channel === "email" ? "email address" : "phone number"} to send a code to`, "channel");
    // Stored before the address rules existed, or by hand: a code goes to one valid destination or nowhere.
    if (!(channel === "email" ? parseEmail(to) : parsePhone(to)))
      throw badRequest(`The user's ${channel === "email" ? "email address" : "phone number"} is not a valid destination`, "channel");
    // Texts go only to the countries the environment allows (toll fraud pumps texts to numbers that pay per text).
    const countries = env.environmentSettings.sms_countries;
    if (channel === "text" && countries) {
      const country = phoneCountry(to);
      if (!country || !countries.includes(country))
        throw badRequest(
          `This environment sends texts only to ${countries.join(", ")} (its sms_countries setting); the user's phone number is ${country ? `in ${country}` : "in no country"}`,
          "channel",
        );
    }
    const at = Date.now();
    refuseResend(row, at);
    // The send is claimed in one conditional update (cooldown over, sends left, status unchanged): of concurrent
    // resends, one is claimed and the others answer as the cooldown does, so the count stored is the codes sent.
    const claimed = await this.repos.challenges.claimSend(row.id, [row.status as ChallengeStatus], at, RESEND_COOLDOWN_MS, MAX_SENDS);
    if (!claimed) {
      const now = (await this.repos.challenges.findById(row.id)) ?? row;
      transition(now.status as ChallengeStatus, "send");
      refuseResend(now, at);
      throw conflict("invalid_transition", "The challenge changed meanwhile; reload it");
    }
    // Beyond this challenge's own limits, across challenges and instances: the budgets of the challenge's source for
    // this recipient and this user, the requesting client's, the project's (budgets.ts). Spent only by the claimed
    // send; a refusal gives the claim back.
    const budgets = sendBudgets(this.config, row, destinationKey(channel, to), env.projectId, requesterIp);
    try {
      refuseIfSpent(budgets, await this.limiter.hitMany(budgets));
    } catch (e) {
      await this.repos.challenges.unclaimSend(row.id, { send_count: claimed.send_count, at }, row.last_sent_at);
      throw e;
    }
    const code = newCode();
    const channels = parseList<Channel>(row.channels);
    if (channels[channels.length - 1] !== channel) channels.push(channel);
    // Record the code (hashed) and the pending delivery first: a crash mid-send leaves an honest "pending".
    let moved = await moveChallenge(this.repos, claimed, "send", {
      code_hash: hashCode(this.keys.codeHash, row.id, code),
      code_channel: channel,
      code_expires_at: at + this.config.CHALLENGE_CODE_TTL_MS,
      channels: JSON.stringify(channels),
      delivery_status: "pending",
      delivery_error: null,
    });
    await this.repos.durable();
    const result = await this.delivery
      .send({
        channel,
        to,
        code,
        language,
        type: row.type as ChallengeType,
        project: { name: env.projectName, logo_url: env.settings.logo_url, color: env.settings.color },
        statusCallback:
          channel === "text" ? callbackUrl(this.config.publicUrl, this.keys.deliveryCallback, row.id, moved.send_count) : undefined,
      })
      .catch((e) => this.abandoned(row.id, at, e));
    if ("error" in result) {
      // Nothing reached anyone: the budgets are for codes delivered, so an outage or a refused number spends none. A
      // bounce stays counted: the recipient's own mail server took the message and refused the address.
      if (result.status === "failed") for (const b of budgets) await this.limiter.refund(b.key, b.windowMs);
      moved =
        (await this.repos.challenges.updateIf(row.id, ["code_sent"], {
          delivery_status: result.status,
          delivery_error: result.error,
          updated_at: Date.now(),
        })) ?? moved;
      throw new ApiError(502, "delivery_failed", `The code could not be delivered: ${result.error}`, "channel");
    }
    const { status: delivered, outbox } = result;
    await this.repos.transaction(async () => {
      if (outbox) {
        await this.repos.challenges.addToOutbox({
          id: newId("msg"),
          environment_id: env.id,
          challenge_id: row.id,
          ...outbox,
          created_at: Date.now(),
        });
      }
      moved =
        (await this.repos.challenges.updateIf(row.id, ["code_sent"], { delivery_status: delivered, updated_at: Date.now() })) ?? moved;
      await this.events.emit(env.id, "challenge.pending", await this.views.eventData(moved, user));
    });
    return moved;
  }
}
