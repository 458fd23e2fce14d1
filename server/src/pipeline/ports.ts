// The interfaces the evaluation pipeline and the domain services share, each implemented by one area and handed to
// the others in their constructors (services.ts): nothing is set on an object after it is built.
import type { Evaluation, PolicyChallenge } from "@tessera/sdk/contract";
import type { EvaluationInput } from "./context.js";
import type { Decision } from "./decide.js";
import type { Identity } from "./identity.js";

/** Issues a challenge inside the evaluation's transaction (implemented by the challenges service). */
export interface ChallengeIssuer {
  /**
   * Whether another challenge may open for this user (at most 3 pending, counted per source: challenges/budgets.ts,
   * docs/security.md), after superseding the ones it replaces; asked first, in the same transaction, so that a refusal
   * is stored as the evaluation's verdict.
   */
  admit(args: { input: EvaluationInput; identity: Identity; decision: Decision }): Promise<boolean>;
  issue(args: {
    input: EvaluationInput;
    evaluationId: string;
    identity: Identity;
    decision: Decision;
    policy: PolicyChallenge;
  }): Promise<{ id: string; status: string; type: string; redirect: string }>;
}

/**
 * Records domain events in the transaction of the change that caused them, the current one (the webhook outbox,
 * webhooks/sink.ts): an event exists if and only if its change was committed.
 */
export interface EventSink {
  emit(environmentId: string, event: string, data: Record<string, unknown>): Promise<void>;
}

/**
 * Records work to do after the current transaction commits (an email to send), in that transaction (jobs/outbox.ts):
 * it runs after the response, and is not lost if the process stops first.
 */
export interface JobQueue {
  enqueue(kind: string, payload: Record<string, unknown>): Promise<void>;
}

export interface EvaluationResult {
  /** The evaluation's id, verdict and challenge link, without building the wire evaluation. */
  id: string;
  verdict: Evaluation["verdict"];
  redirect?: string;
  /**
   * The wire evaluation (docs/server-api.md), built from the stored row when first read: the client API answers only
   * the id, and building it parses back every JSON column just written (the checks' snapshot above all).
   */
  readonly evaluation: Evaluation;
  /** The device was detached (kicked) since this browser last asked: its SDK must log the user out. */
  logout: boolean;
  /** A page view of a known session, decided on the light path (pipeline/page-view.ts). */
  path?: "known_session_view";
}

/**
 * A consequence of an evaluation for another area (an account-sharing signal, a conversion), run inside the
 * evaluation's transaction once it is stored: its events and jobs are committed with the evaluation, or not at all.
 */
export type EvaluationStep = (result: EvaluationResult, input: EvaluationInput, identity: Identity, decision: Decision) => Promise<void>;

/** Told of each committed evaluation (request logs); synchronous, writes nothing. */
export type EvaluationObserver = (result: EvaluationResult, input: EvaluationInput) => void;

/** The live summary of a challenge (the challenges service), for evaluations read later. */
export type ChallengeSummaryLookup = (id: string) => Promise<{ id: string; status: string; type: string | null } | undefined>;
