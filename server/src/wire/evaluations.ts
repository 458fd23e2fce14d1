// The wire evaluation (docs/server-api.md) from its stored row, its user and its challenge's live status.
import type { Evaluation } from "@tessera/sdk/contract";
import { loadRisks } from "../risks/index.js";
import type { EvaluationsRelated } from "../store/evaluation-search.js";
import type { EvaluationRow } from "../store/evaluations.js";
import type { UserRow } from "../store/users.js";
import { iso, isoOrUndefined } from "../time.js";
import { customerIdOf } from "./users.js";

type UserBits = Pick<UserRow, "id" | "external_id" | "email" | "phone">;

const parse = <T>(s: string | null): T | undefined => (s == null ? undefined : (JSON.parse(s) as T));

export function toWireEvaluation(
  row: EvaluationRow,
  user: UserBits | undefined,
  challenge?: { id: string; status: string; type: string | null },
): Evaluation {
  const ev: Evaluation = {
    id: row.id,
    action: row.action,
    verdict: row.verdict as Evaluation["verdict"],
    reasons: JSON.parse(row.reasons) as string[],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    consumed: row.consumed === 1,
  };
  if (row.redirect) ev.redirect = row.redirect;
  if (user) {
    const embedded: NonNullable<Evaluation["user"]> = { service_id: user.id, ...customerIdOf(user) };
    if (user.email) embedded.email = user.email;
    if (user.phone) embedded.phone = user.phone;
    ev.user = embedded;
  }
  if (challenge) {
    ev.challenge = { id: challenge.id, status: challenge.status as NonNullable<Evaluation["challenge"]>["status"] };
    if (challenge.type) ev.challenge.type = challenge.type as NonNullable<Evaluation["challenge"]>["type"];
  }
  const policy = parse<Evaluation["policy"]>(row.policy);
  if (policy) ev.policy = policy;
  if (row.fingerprint_id) ev.fingerprint = { id: row.fingerprint_id, confidence: row.fingerprint_confidence ?? 0 };
  const geo = parse<Evaluation["geolocation"]>(row.geolocation);
  if (geo) ev.geolocation = geo;
  if (row.device_id) ev.device = row.device_id;
  if (row.access_id) ev.access = row.access_id;
  // The risks detected (a score above 0), as the evaluation object lists them; policies and backtests read every
  // category's score from the stored form (risks/index.ts), a score of 0 included.
  if (row.risks) ev.risks = loadRisks(row.risks, row.id).filter((r) => r.score > 0);
  const metadata = parse<Evaluation["metadata"]>(row.metadata);
  if (metadata) ev.metadata = metadata;
  const checks = parse<Evaluation["checks"]>(row.checks);
  if (checks) ev.checks = checks;
  const consumedAt = isoOrUndefined(row.consumed_at);
  if (consumedAt) ev.consumed_at = consumedAt;
  return ev;
}

/** A page of evaluations with the users and challenges it names (EvaluationSearchRepo.related). */
export function toWireEvaluations(rows: EvaluationRow[], related: EvaluationsRelated): Evaluation[] {
  return rows.map((r) =>
    toWireEvaluation(
      r,
      r.user_id ? related.users.get(r.user_id) : undefined,
      r.challenge_id ? related.challenges.get(r.challenge_id) : undefined,
    ),
  );
}
