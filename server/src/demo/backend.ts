// The demo customer's own backend logic (README "Login integration"), written exactly as a customer would with the
// backend client: read the verdict, check it belongs to this request, then let the user in (fully or restricted),
// send them to the challenge, or refuse; back from a challenge, consume it and accept only a completed challenge.
import { ApiError, type Client, type Evaluation } from "@tessera/sdk/node";

export type Outcome =
  | { kind: "allow" | "restrict"; evaluation: Evaluation }
  | { kind: "deny"; reason: string }
  | { kind: "challenge"; redirect: string };

/** Decides a form post that carried `evaluation_id` from `tessera.evaluate[action]()` in the browser. */
export async function decide(client: Client, evaluationId: string, expected: { action: string; user: string }): Promise<Outcome> {
  let evaluation: Evaluation;
  try {
    evaluation = await client.getEvaluation(evaluationId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { kind: "deny", reason: "unknown evaluation" };
    throw error;
  }
  // Integrity: an evaluation made for another action or another user (or replayed) proves nothing here.
  if (evaluation.action !== expected.action) return { kind: "deny", reason: "evaluation is for another action" };
  if (evaluation.user?.id !== expected.user) return { kind: "deny", reason: "evaluation is for another user" };
  if (evaluation.consumed) return { kind: "deny", reason: "evaluation already used" };

  switch (evaluation.verdict) {
    case "allow":
    case "restrict":
      // Consume so the same evaluation cannot be replayed for a second login.
      return { kind: evaluation.verdict, evaluation: await client.consumeEvaluation(evaluation.id) };
    case "challenge":
    case "challenge_and_restrict":
      if (!evaluation.redirect) return { kind: "deny", reason: "challenge without a redirect" };
      return { kind: "challenge", redirect: evaluation.redirect };
    default:
      return { kind: "deny", reason: "denied by policy" };
  }
}

/** Back from the hosted challenge (`success_url?evaluation=<id>`): consume, accept only a completed challenge. */
export async function afterChallenge(client: Client, evaluationId: string): Promise<Outcome> {
  let evaluation: Evaluation;
  try {
    evaluation = await client.consumeEvaluation(evaluationId);
  } catch (error) {
    if (error instanceof ApiError && (error.code === "already_consumed" || error.status === 404)) {
      return { kind: "deny", reason: error.code === "already_consumed" ? "evaluation already used" : "unknown evaluation" };
    }
    throw error;
  }
  if (evaluation.challenge?.status !== "completed") return { kind: "deny", reason: "challenge not completed" };
  // challenge_and_restrict: verified, and still restricted.
  return { kind: evaluation.verdict === "challenge_and_restrict" ? "restrict" : "allow", evaluation };
}
