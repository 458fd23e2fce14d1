// The evaluation pipeline, top to bottom (docs/architecture.md):
// request → context → identity (user, fingerprint, device) → decide (signals → checks → risks → policies → verdict)
// → challenge → one transaction storing the evaluation with everything it implies (+ events).
import { createHash } from "node:crypto";
import { networkOf, perIpKey } from "../geo/ip.js";
import { newId } from "../ids.js";
import { storeRisks } from "../risks/index.js";
import type { EvaluationRow } from "../store/evaluations.js";
import { ADMITTED } from "../store/history.js";
import { deviceKey } from "../store/login-attempts.js";
import type { Repos } from "../store/repos.js";
import { isUserTaken, type UserRow } from "../store/users.js";
import { toWireEvaluation } from "../wire/evaluations.js";
import { accountEmailKey } from "./account-email.js";
import type { EvaluationInput } from "./context.js";
import { decide } from "./decide.js";
import { type Identity, resolveIdentity } from "./identity.js";
import { persistIdentity } from "./persist-identity.js";
import type { ChallengeIssuer, EvaluationObserver, EvaluationResult, EvaluationStep } from "./ports.js";

/** The reason added to an evaluation denied because its user already has the most pending challenges allowed. */
export const TOO_MANY_CHALLENGES = "too_many_challenges";

/**
 * The account of the request, written in the evaluation's transaction: the named user (created if new, provisional when first seen on a
 * login; an email-only account the same browser signed up with takes the name), or for a request naming no user
 * but an email, the account that email names (docs/identity.md).
 */
async function persistUser(repos: Repos, input: EvaluationInput, identity: Identity, reread: boolean): Promise<UserRow | undefined> {
  const provisional = input.action === "login";
  if (input.user) {
    // Read by the identity step: a new user (none found under this id) is inserted without a second read, unless
    // another request created it since (`reread`: the transaction's second attempt).
    let known: UserRow | null | undefined = identity.user ?? (identity.userIsNew && !reread ? null : undefined);
    if (identity.claim && known) {
      await repos.users.claim(known.id, input.user, input.at);
      known = { ...known, external_id: input.user };
    }
    const fields = { source: input.source, email: input.email, phone: input.phone, metadata: input.metadata, provisional };
    return (await repos.users.upsert(input.env.id, input.user, fields, known)).user;
  }
  if (identity.emailKey && input.email) {
    return (
      identity.user ??
      (await repos.users.createEmailAccount(input.env.id, {
        email: input.email,
        emailKey: identity.emailKey,
        phone: input.phone,
        metadata: input.metadata,
        provisional,
      }))
    );
  }
  return identity.user;
}

/**
 * What a stored evaluation answers; its wire form is built from the stored row when first read. A class rather than
 * an object literal with a getter: V8 keeps such a literal's properties in a dictionary, its getter (a new closure each
 * time) in an accessor pair made in the old generation. Dead once answered, that pair still held the closure and,
 * through it, the request's input, identity and decision through every scavenge until a mark-compact: each
 * evaluation's objects were promoted, about 12 KiB of them (docs/decisions/young-generation.md).
 */
class StoredEvaluation implements EvaluationResult {
  readonly id: string;
  declare redirect?: string;
  declare path?: "known_session_view";
  readonly #row: EvaluationRow;
  readonly #user: UserRow | undefined;
  readonly #challenge: { id: string; status: string; type: string } | undefined;
  #wire: EvaluationResult["evaluation"] | undefined;

  constructor(
    row: EvaluationRow,
    user: UserRow | undefined,
    challenge: { id: string; status: string; type: string } | undefined,
    public verdict: EvaluationResult["verdict"],
    public logout: boolean,
    path: EvaluationResult["path"],
  ) {
    this.id = row.id;
    if (row.redirect) this.redirect = row.redirect;
    if (path) this.path = path;
    this.#row = row;
    this.#user = user;
    this.#challenge = challenge;
  }

  get evaluation(): EvaluationResult["evaluation"] {
    this.#wire ??= toWireEvaluation(this.#row, this.#user, this.#challenge);
    return this.#wire;
  }
}

/**
 * The keys whose counts an evaluation reads and then writes (docs/storage.md, "Concurrency on PostgreSQL"): its browser
 * (visitor token, and its components for a browser that lost its token), its network (the IP's /24 or /48, which holds
 * the IP), and the account it names (user id, email). Evaluations sharing one run one after the other
 * (store/key-locks.ts), so a burst counts itself as the same requests sent in sequence would. Page views take none:
 * they open no account and count no login attempt, their velocity counters are atomic already, and they are the
 * traffic that must not queue.
 */
export function evaluationKeys(input: EvaluationInput): string[] {
  if (input.action === "access") return [];
  const env = input.env.id;
  const keys: string[] = [];
  const token = input.signals.visitor_token;
  if (token) keys.push(`t:${env}:${token}`);
  const components = input.signals.components;
  if (components && Object.keys(components).length > 0)
    keys.push(`f:${env}:${createHash("sha256").update(JSON.stringify(components)).digest("base64url")}`);
  const network = networkOf(input.ip);
  if (network) keys.push(`n:${env}:${network}`);
  if (input.user) keys.push(`u:${env}:${input.user}`);
  if (input.email) keys.push(`e:${env}:${accountEmailKey(input.email)}`);
  return keys;
}

export class Pipeline {
  /** Told of each committed evaluation (observe.ts: the request log). */
  readonly observers: EvaluationObserver[] = [];

  constructor(
    private readonly repos: Repos,
    private readonly challenges: ChallengeIssuer,
    /** Consequences for other areas, run in the evaluation's transaction after it is stored (services.ts lists them). */
    private readonly steps: readonly EvaluationStep[],
  ) {}

  async evaluate(input: EvaluationInput): Promise<EvaluationResult> {
    return this.repos.keyLocks.hold(
      () => evaluationKeys(input),
      () => this.#evaluate(input),
    );
  }

  async #evaluate(input: EvaluationInput): Promise<EvaluationResult> {
    const { repos } = this;
    const identity = await resolveIdentity(repos, input);
    // The id first: the risks are named after their evaluation.
    const evaluationId = newId("ev");
    const decision = await decide(repos, input, identity, evaluationId);
    let logout = false;

    let reread = false;
    const store = async () => {
      const at = input.at;
      const userRow = await persistUser(repos, input, identity, reread);
      const admitted = ADMITTED.includes(decision.verdict);
      // An email a browser claims finds an account for counting, but never brings its device into an account that has a
      // customer id: only the customer's user id does (a sign-up with a victim's email must not become a known device).
      const account = identity.emailKey && userRow && userRow.external_id !== userRow.id ? undefined : userRow;
      // The device joins the account on a login or sign-up that lets the user in, or with a user id the backend signed;
      // a page view naming the account never puts a browser on its list (the client id is public).
      const signs = input.action === "login" || input.action === "signup" || decision.checks.identity_verified === true;
      logout = (await persistIdentity(repos, input, identity, { user: account, joins: admitted && signs })).logout;
      const device = identity.device;
      // A login naming an account the backend has not confirmed: counted for credential stuffing (docs/identity.md).
      if (input.action === "login" && userRow?.provisional === 1) {
        await repos.loginAttempts.record({
          id: newId("lat"),
          environment_id: input.env.id,
          user_id: userRow.id,
          device_key: deviceKey(input.signals.visitor_token, device?.row.id) ?? null,
          fingerprint_id: identity.fingerprint?.row.id ?? null,
          // Counted per IP: an IPv6 client by its /64 (geo/ip.ts, perIpKey).
          ip: input.ip ? perIpKey(input.ip) : null,
          network: networkOf(input.ip) ?? null,
          created_at: at,
        });
      }

      // A page view's access record: the repeat views of a known session share one per session window
      // (store/access-records.ts, recordView).
      let accessId: string | null = null;
      if (input.action === "access" && device) {
        const record = {
          id: newId("acc"),
          environment_id: input.env.id,
          device_id: device.row.id,
          user_id: userRow?.id ?? null,
          confidence: identity.fingerprint?.confidence ?? 0,
          metadata: "{}",
          created_at: at,
          updated_at: at,
        };
        accessId = await repos.accessRecords.recordView(record, decision.path === "known_session_view");
      }

      // Too many challenges pending for this user from this source: deny rather than open another (docs/security.md).
      const wantsChallenge = decision.verdict === "challenge" || decision.verdict === "challenge_and_restrict";
      if (wantsChallenge && decision.challenge) {
        if (!(await this.challenges.admit({ input, identity: { ...identity, user: userRow }, decision }))) {
          decision.verdict = "deny";
          decision.reasons = [...decision.reasons, TOO_MANY_CHALLENGES];
        }
      }

      const geo = decision.geolocation;
      // A VPN, proxy, Tor or hosting exit (migration 21). `asn`, `somewhere`, `provider_asn`, `timezone` and `language`
      // are read by nothing since the familiarity ledger replaced them (migration 30): written for a release rolled back to.
      const security = geo?.security;
      const exit = !!security && (security.vpn || security.proxy || security.tor || security.hosting);
      const row: EvaluationRow = {
        id: evaluationId,
        environment_id: input.env.id,
        action: input.action,
        verdict: decision.verdict,
        reasons: JSON.stringify(decision.reasons),
        redirect: null,
        user_id: userRow?.id ?? null,
        device_id: device?.row.id ?? null,
        fingerprint_id: identity.fingerprint?.row.id ?? null,
        fingerprint_confidence: identity.fingerprint?.confidence ?? null,
        access_id: accessId,
        challenge_id: null,
        ip: input.ip ?? null,
        // What every per-IP count reads: an IPv6 client is its /64 (migration 37).
        ip_key: input.ip ? perIpKey(input.ip) : null,
        country_code: geo?.country_code ?? null,
        latitude: geo?.latitude ?? null,
        longitude: geo?.longitude ?? null,
        network: decision.network?.prefix ?? null,
        asn: decision.network?.asn ?? null,
        somewhere: security && !exit ? 1 : 0,
        provider_asn: exit ? (geo?.asn ?? null) : null,
        timezone: decision.familiar.timezone ?? null,
        language: decision.familiar.language ?? null,
        familiar: userRow ? JSON.stringify(decision.familiar) : null,
        geolocation: geo ? JSON.stringify(geo) : null,
        policy: decision.policy ? JSON.stringify(decision.policy) : null,
        risks: storeRisks(decision.risks),
        checks: JSON.stringify(decision.checks),
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        consumed: 0,
        consumed_at: null,
        // Let in, and the backend sent it or signed the user id the browser sent, or the user signed in on this device
        // before (migration 23): the user's own from the start.
        confirmed: admitted && (decision.checks.identity_verified === true || decision.signedIn) ? 1 : 0,
        // A device recognised by its fingerprint takes this request's token (a backend evaluation's: that of the client
        // evaluation it reuses) only once the evaluation is vouched for (migration 27): at once with a signed user id or
        // from the backend, else when consumed or its challenge is passed.
        pending_token: (identity.device?.recognised && (identity.device.pendingToken ?? input.signals.visitor_token)) || null,
        created_at: at,
        updated_at: at,
      };
      await repos.evaluations.insert(row);
      // The user's own from the start: its familiar values are theirs, and, vouched for by the backend on a device the
      // user had not signed in on yet (or recognised by its fingerprint, which then takes the request's token), now they
      // have.
      if (row.confirmed === 1)
        await repos.evaluations.trustAtInsert(row, decision.signedIn === true, decision.path === "known_session_view");
      // Under the internal user id, known only now for a new user: the same id content_repetition_count excludes.
      if (decision.contentHash) await repos.history.recordContent(input.env.id, decision.contentHash, userRow?.id ?? null, at);

      let challenge: { id: string; status: string; type: string } | undefined;
      if (decision.verdict !== "deny" && wantsChallenge && decision.challenge) {
        const issued = await this.challenges.issue({
          input,
          evaluationId,
          identity: { ...identity, user: userRow },
          decision,
          policy: decision.challenge,
        });
        challenge = { id: issued.id, status: issued.status, type: issued.type };
        row.challenge_id = issued.id;
        row.redirect = issued.redirect;
        await repos.evaluations.setChallenge(evaluationId, issued.id, issued.redirect);
      }
      const out = new StoredEvaluation(row, userRow, challenge, decision.verdict, logout, decision.path);
      // Consequences for other areas, committed with the evaluation (their events, their jobs) or not at all.
      for (const step of this.steps) await step(out, input, identity, decision);
      return out;
    };
    const { verdict, reasons } = decision;
    const result = await repos.transaction(store).catch((e: unknown) => {
      // Another request created the user this one found new, between the identity step's read and this commit (on
      // PostgreSQL the insert goes in the write batch, at the commit): the transaction was rolled back whole, and is
      // stored again with that user, as if it had been there all along. Once: the user exists now.
      if (!identity.userIsNew || !isUserTaken(e)) throw e;
      reread = true;
      // As decided: the rolled-back attempt may have turned a challenge into a deny (too many challenges, above).
      decision.verdict = verdict;
      decision.reasons = reasons;
      return repos.transaction(store);
    });
    for (const observe of this.observers) observe(result, input);
    return result;
  }
}
