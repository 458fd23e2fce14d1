// Budgets per source (docs/security.md): every cap that protects a user — pending challenges, code sends, wrong codes
// — is counted per user (or recipient) *and* per source, the browser that raised the challenge and its network, so
// that an attacker who names someone else's account spends the attacker's own budgets and never the owner's. A browser
// the user's backend vouched for has budgets of its own, in another namespace that no stranger's challenge reaches.
// Sends are also capped where pumping happens: per client IP (link requests) and per project.
// The source is recorded on the challenge when it is issued (migration 26); what its link does later is charged to it.
import { createHash } from "node:crypto";
import type { Config } from "../config.js";
import { rateLimited } from "../errors.js";
import { budgetNetworkOf, perIpKey } from "../geo/ip.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Decision } from "../pipeline/decide.js";
import type { Identity } from "../pipeline/identity.js";
import type { RateLimitResult, RateLimitRule } from "../rate-limit/limiter.js";
import type { ChallengeRow } from "../store/challenges.js";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** Where a challenge came from, as stored on it (challenges.source_*, contact_only). */
export interface ChallengeSource {
  /**
   * The browser: a hash of its visitor token, else of its device id; `backend:<environment id>` for a backend's request
   * with neither.
   */
  key: string;
  /** Its network as a budget counts it (IPv4 /24, IPv6 /64); null without an address. */
  network: string | null;
  /** The user's backend vouched for this browser: its budgets are its own. */
  vouched: boolean;
  /** Raised only because the browser claimed other contacts (Decision.contactOnly). */
  contactOnly: boolean;
}

/**
 * A browser's key: hashed, so that the counters and the challenges table hold no visitor token. A backend's request
 * naming no browser is that environment's backend: each environment's (each secret key's) budgets are its own, as a
 * vouched browser's are; one key for every backend let another project's or environment's sends, to an inbox both
 * know, spend this one's (the per-recipient budget is counted across environments: one inbox is one recipient).
 */
export function sourceKeyOf(token: string | undefined, deviceId: string | undefined, environmentId: string): string {
  if (token) return createHash("sha256").update(`token:${token}`).digest("base64url").slice(0, 22);
  if (deviceId) return createHash("sha256").update(`device:${deviceId}`).digest("base64url").slice(0, 22);
  return `backend:${environmentId}`;
}

/**
 * The source of a challenge an evaluation raises. Vouched: a backend evaluated it, or the request carried a valid
 * user_token (identity_verified), or its own visitor token is on a device the user signed in on (decision.signedIn,
 * for a device found by that very token: one matched only by a look-alike fingerprint is a stranger's browser, as for
 * superseding in ChallengeService.admit).
 */
export function challengeSource(input: EvaluationInput, identity: Identity, decision: Decision): ChallengeSource {
  const token = input.signals.visitor_token;
  const device = identity.device?.row;
  const ownDevice = token !== undefined && device?.visitor_token === token;
  return {
    key: sourceKeyOf(token, device?.id, input.env.id),
    network: budgetNetworkOf(input.ip) ?? null,
    vouched: input.source === "server" || decision.checks.identity_verified === true || (decision.signedIn === true && ownDevice),
    contactOnly: decision.contactOnly === true,
  };
}

/** The columns that record a challenge's source. */
export function sourceColumns(s: ChallengeSource): Pick<ChallengeRow, "source_key" | "source_network" | "source_vouched" | "contact_only"> {
  return { source_key: s.key, source_network: s.network, source_vouched: s.vouched ? 1 : 0, contact_only: s.contactOnly ? 1 : 0 };
}

/**
 * The budgets of a challenge's source, as key suffixes: a vouched browser's own (`v:`), else the browser's (`b:`)
 * and its network's (`n:`) — a stranger changing visitor tokens still spends the one of the network.
 */
function sourceParts(row: Pick<ChallengeRow, "source_key" | "source_network" | "source_vouched">): string[] {
  const key = row.source_key ?? "unknown";
  if (row.source_vouched === 1) return [`v:${key}`];
  return [`b:${key}`, ...(row.source_network ? [`n:${row.source_network}`] : [])];
}

/** A limiter rule with what a refusal tells the caller. */
export interface Budget extends RateLimitRule {
  refusal: string;
}

type Caps = Pick<Config, "CODE_SENDS_PER_RECIPIENT" | "CODE_SENDS_PER_USER" | "CODE_SENDS_PER_IP" | "CODE_SENDS_PER_PROJECT">;

/**
 * What one code send spends: the recipient's and the user's budgets of the challenge's source; the requesting
 * client's, when the request came through the challenge link (a backend sending with its secret key is not one
 * client); and the project's.
 */
export function sendBudgets(
  config: Caps,
  row: ChallengeRow,
  destination: string,
  projectId: string,
  requesterIp: string | undefined,
): Budget[] {
  const parts = sourceParts(row);
  const budgets: Budget[] = parts.map((p) => ({
    key: `code-to:${destination}:${p}`,
    limit: config.CODE_SENDS_PER_RECIPIENT,
    windowMs: HOUR,
    refusal: "Too many codes sent to this address: try again later",
  }));
  if (row.user_id) {
    for (const p of parts)
      budgets.push({
        key: `code-user:${row.user_id}:${p}`,
        limit: config.CODE_SENDS_PER_USER,
        windowMs: DAY,
        refusal: "Too many codes sent for this account: try again later",
      });
  }
  const client = requesterIp ? perIpKey(requesterIp) : undefined;
  if (client)
    budgets.push({
      key: `code-ip:${client}`,
      limit: config.CODE_SENDS_PER_IP,
      windowMs: HOUR,
      refusal: "Too many codes asked for from this network: try again later",
    });
  budgets.push({
    key: `code-project:${projectId}`,
    limit: config.CODE_SENDS_PER_PROJECT,
    windowMs: HOUR,
    refusal: "Too many codes sent by this service this hour: try again later",
  });
  return budgets;
}

/** What one guess spends: the user's wrong-code budgets of the challenge's source (none without a user). */
export function wrongCodeBudgets(config: Pick<Config, "WRONG_CODES_PER_USER">, row: ChallengeRow): Budget[] {
  if (!row.user_id) return [];
  return sourceParts(row).map((p) => ({
    key: `wrong-code:${row.user_id}:${p}`,
    limit: config.WRONG_CODES_PER_USER,
    windowMs: HOUR,
    refusal: "Too many wrong codes for this account: try again later",
  }));
}

/** A 429 naming the budget that keeps the caller waiting longest, when any of `results` refused; else nothing. */
export function refuseIfSpent(budgets: readonly Budget[], results: readonly RateLimitResult[]): void {
  let worst: { budget: Budget; wait: number } | undefined;
  for (const [i, r] of results.entries()) {
    const budget = budgets[i];
    if (budget && !r.allowed && (!worst || r.retryAfterMs > worst.wait)) worst = { budget, wait: r.retryAfterMs };
  }
  if (worst) throw rateLimited(worst.wait / 1000, worst.budget.refusal);
}
