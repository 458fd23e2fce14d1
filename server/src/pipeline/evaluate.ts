// The evaluation pipeline, top to bottom (SPEC.md 6):
// request → context → identity (user, fingerprint, device) → decide (signals → checks → risks → policies → verdict)
// → challenge → one transaction storing the evaluation with everything it implies (+ events).
import type { Evaluation, PolicyChallenge } from "@tessera/sdk/contract";
import type { Kysely } from "kysely";
import { newId } from "../ids.js";
import { storeRisks } from "../risks/index.js";
import { type EvaluationRow, toWireEvaluation } from "../store/evaluations.js";
import { insertRow } from "../store/prepared.js";
import type { Repos } from "../store/repos.js";
import type { Database } from "../store/schema.js";
import type { EvaluationInput } from "./context.js";
import { type Decision, decide } from "./decide.js";
import { type Identity, resolveIdentity } from "./identity.js";

/** Issues a challenge inside the evaluation's transaction (implemented by the challenges service). */
export interface ChallengeIssuer {
  issue(
    db: Kysely<Database>,
    args: { input: EvaluationInput; evaluationId: string; identity: Identity; decision: Decision; policy: PolicyChallenge },
  ): Promise<{ id: string; status: string; type: string; redirect: string }>;
}

/** Records domain events in the same transaction as the change that caused them (the webhook outbox). */
export interface EventSink {
  emit(db: Kysely<Database>, environmentId: string, event: string, data: Record<string, unknown>): Promise<void>;
}

/** Runs after the evaluation is committed (e.g. account-sharing signals); must not throw. */
export type AfterEvaluate = (
  result: EvaluationResult,
  input: EvaluationInput,
  identity: Identity,
  decision: Decision,
) => Promise<void> | void;

export interface EvaluationResult {
  evaluation: Evaluation;
  /** The device was detached (kicked) since this browser last asked: its SDK must log the user out. */
  logout: boolean;
}

export class Pipeline {
  challenges?: ChallengeIssuer;
  events?: EventSink;
  readonly after: AfterEvaluate[] = [];

  constructor(private readonly repos: Repos) {}

  async evaluate(input: EvaluationInput): Promise<EvaluationResult> {
    const { repos } = this;
    const identity = await resolveIdentity(repos, input);
    const decision = await decide(repos, input, identity);
    const evaluationId = newId("ev");
    let logout = false;

    const result = await repos.db.transaction().execute(async (tx) => {
      const at = input.at;
      let userRow = identity.user;
      if (input.user) {
        userRow = (
          await repos.users.upsert(
            input.env.id,
            input.user,
            { email: input.email, phone: input.phone, metadata: input.metadata },
            tx,
            identity.user,
          )
        ).user;
      }
      if (identity.fingerprint) {
        const { row: fp, drift } = identity.fingerprint;
        if (identity.fingerprint.isNew) await repos.fingerprints.insert(fp, tx);
        // A drift match moves the known fingerprint to the components just seen (a sighting too, in the same write).
        else if (drift) await repos.fingerprints.updateComponents(fp.id, { ...drift, last_seen_at: at }, tx);
        else await repos.fingerprints.touch(fp, at, tx);
      }
      const device = identity.device;
      // A device joins the user's account only on a verdict that lets the user in: a challenged device joins when
      // its challenge completes, a denied one never (an attacker's browser must not count as the victim's).
      const admitted = decision.verdict === "allow" || decision.verdict === "restrict";
      if (device) {
        const row = device.row;
        if (device.isNew) {
          if (userRow && admitted) Object.assign(row, { user_id: userRow.id, status: "attached", attached_at: at });
          await repos.devices.insert(row, tx);
        } else {
          const patch: Partial<typeof row> = { last_seen_at: at, last_ip: input.ip ?? row.last_ip, updated_at: at };
          if (identity.fingerprint && row.fingerprint_id !== identity.fingerprint.row.id)
            patch.fingerprint_id = identity.fingerprint.row.id;
          if (!row.visitor_token && input.signals.visitor_token) patch.visitor_token = input.signals.visitor_token;
          if (row.status === "detached" && row.logout_pending === 1) {
            // Kicked since it last asked: tell the SDK to log out once; a later login re-attaches it.
            logout = true;
            patch.logout_pending = 0;
          } else if (userRow && admitted && (row.user_id !== userRow.id || row.status === "detached")) {
            Object.assign(patch, { user_id: userRow.id, status: "attached", attached_at: at, detached_at: null });
          }
          await repos.devices.update(row.id, patch, tx);
          Object.assign(row, patch);
        }
      }

      let accessId: string | null = null;
      if (input.action === "access" && device) {
        accessId = newId("acc");
        await insertRow(tx, "access_records", {
          id: accessId,
          environment_id: input.env.id,
          device_id: device.row.id,
          user_id: userRow?.id ?? null,
          confidence: identity.fingerprint?.confidence ?? 0,
          metadata: "{}",
          created_at: at,
          updated_at: at,
        });
      }

      const geo = decision.geolocation;
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
        country_code: geo?.country_code ?? null,
        latitude: geo?.latitude ?? null,
        longitude: geo?.longitude ?? null,
        geolocation: geo ? JSON.stringify(geo) : null,
        policy: decision.policy ? JSON.stringify(decision.policy) : null,
        risks: storeRisks(decision.risks),
        checks: JSON.stringify(decision.checks),
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        consumed: 0,
        consumed_at: null,
        created_at: at,
        updated_at: at,
      };
      await repos.evaluations.insert(row, tx);
      // Under the internal user id, known only now for a new user: the same id content_repetition_count excludes.
      if (decision.contentHash) await repos.history.recordContent(input.env.id, decision.contentHash, userRow?.id ?? null, at, tx);

      let challenge: { id: string; status: string; type: string } | undefined;
      const wantsChallenge = decision.verdict === "challenge" || decision.verdict === "challenge_and_restrict";
      if (wantsChallenge && decision.challenge && this.challenges) {
        const issued = await this.challenges.issue(tx, {
          input,
          evaluationId,
          identity: { ...identity, user: userRow },
          decision,
          policy: decision.challenge,
        });
        challenge = { id: issued.id, status: issued.status, type: issued.type };
        row.challenge_id = issued.id;
        row.redirect = issued.redirect;
        await repos.evaluations.setChallenge(evaluationId, issued.id, issued.redirect, tx);
      }
      return toWireEvaluation(row, userRow, challenge ? { ...challenge, type: challenge.type } : undefined);
    });

    const out = { evaluation: result, logout };
    for (const hook of this.after) {
      try {
        await hook(out, input, identity, decision);
      } catch {
        // After-hooks are best effort by contract; the evaluation is already committed.
      }
    }
    return out;
  }
}
