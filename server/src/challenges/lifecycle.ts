// The challenge lifecycle's writes (docs/challenges.md): every status change goes through the transition table
// (transitions.ts) and a conditional update, so an impossible move is one error and a concurrent one loses cleanly.
import type { ChallengeStatus } from "@tessera/sdk/contract";
import { conflict } from "../errors.js";
import type { ChallengeRow } from "../store/challenges.js";
import type { Repos } from "../store/repos.js";
import { type ChallengeOperation, isPending, transition } from "./transitions.js";

/** Applies `op` (with `patch`) to the challenge as read; 409 if the table forbids it or the challenge moved meanwhile. */
export async function moveChallenge(
  repos: Repos,
  row: ChallengeRow,
  op: ChallengeOperation,
  patch: Partial<ChallengeRow> = {},
): Promise<ChallengeRow> {
  const from = row.status as ChallengeStatus;
  const to = transition(from, op);
  const moved = await repos.challenges.updateIf(row.id, [from], { ...patch, status: to, updated_at: Date.now() });
  if (!moved) throw conflict("invalid_transition", "The challenge changed meanwhile; reload it");
  return moved;
}

/** Expiry is applied lazily: a pending challenge past its time fails on its next read. Answers the row as it is now. */
export async function expireIfDue(repos: Repos, row: ChallengeRow, at = Date.now()): Promise<ChallengeRow> {
  const from = row.status as ChallengeStatus;
  if (!isPending(from) || at < row.expires_at) return row;
  const moved = await repos.challenges.updateIf(row.id, [from], { status: transition(from, "expire"), updated_at: at });
  return moved ?? (await repos.challenges.find(row.environment_id, row.id)) ?? row;
}
