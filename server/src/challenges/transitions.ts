// The challenge lifecycle as one transition table (docs/challenges.md): every operation goes through `transition`,
// and an impossible move is one error (409 invalid_transition) in one place.
import type { ChallengeStatus } from "@tessera/sdk/contract";
import { conflict } from "../errors.js";

export type ChallengeOperation = "open" | "send" | "verify" | "fail" | "complete" | "skip" | "override" | "expire";

/** The status a challenge is issued in. */
export const INITIAL_STATUS: ChallengeStatus = "created";

const PENDING: ChallengeStatus[] = ["created", "presented", "code_sent", "verified"];

/** from → operation → to. `open` of an already opened challenge is a no-op handled by the service. */
export const TRANSITIONS: ReadonlyArray<{ from: readonly ChallengeStatus[]; op: ChallengeOperation; to: ChallengeStatus }> = [
  { from: ["created"], op: "open", to: "presented" },
  // A code can be (re)sent before or after opening; after one channel is verified, to verify the next one.
  { from: ["created", "presented", "code_sent", "verified"], op: "send", to: "code_sent" },
  { from: ["code_sent"], op: "verify", to: "verified" },
  { from: ["code_sent"], op: "fail", to: "failed" },
  { from: ["verified"], op: "complete", to: "completed" },
  { from: ["created", "presented", "code_sent"], op: "skip", to: "skipped" },
  { from: PENDING, op: "override", to: "overridden" },
  { from: PENDING, op: "expire", to: "failed" },
];

export const TERMINAL: ReadonlySet<ChallengeStatus> = new Set(["completed", "failed", "skipped", "overridden"]);
export const isPending = (s: ChallengeStatus): boolean => !TERMINAL.has(s);

export function canTransition(from: ChallengeStatus, op: ChallengeOperation): ChallengeStatus | undefined {
  return TRANSITIONS.find((t) => t.op === op && t.from.includes(from))?.to;
}

/** The next status, or a 409 naming the impossible move. */
export function transition(from: ChallengeStatus, op: ChallengeOperation): ChallengeStatus {
  const to = canTransition(from, op);
  if (!to) throw conflict("invalid_transition", `Cannot ${op} a challenge that is ${from}`);
  return to;
}
