// Recovery of interrupted code sends (docs/challenges.md, docs/operations.md). A send records the code and a "pending" delivery, commits, sends,
// then records the outcome and emits challenge.pending (service.ts). A process that stops in between left the
// challenge "code_sent"/"pending" for good. Here such a send becomes "failed" with a reason the hosted app shows, so the
// user asks for a new code (the resend cooldown is lifted); a code that did arrive still verifies. A server that stops
// while a provider stalls abandons the send and recovers it itself (recoverAbandonedSend). No
// challenge.pending is emitted: nobody knows that a code went out. A slow send that finishes after its recovery still
// records its outcome (service.ts updates a code_sent challenge whatever its delivery state) and emits the event.
import type { Repos } from "../store/repos.js";
import { RESEND_COOLDOWN_MS } from "./codes.js";

/**
 * A send still pending this long after it began was interrupted. Sends end well before: the SMS provider call times out
 * after 10 s and a mail server answers within seconds; the code itself is valid for 10 minutes.
 */
export const SEND_DEADLINE_MS = 2 * 60 * 1000;

export const INTERRUPTED_SEND_ERROR = "The code may not have been sent (the server stopped while sending it): ask for a new code";

/** Sends recovered per call: the rest wait for the next round. */
const BATCH = 100;

/**
 * Marks the interrupted sends that began before `before` as failed; answers how many. The resend cooldown is lifted:
 * the user is told to ask for a new code, and on the embedded store this runs as the restarted server starts, seconds
 * after the send began (MAX_SENDS and the caps per recipient and user still count it).
 */
export async function recoverInterruptedSends(repos: Repos, before: number, at = Date.now()): Promise<number> {
  let recovered = 0;
  for (const row of await repos.challenges.interruptedSends(before, BATCH)) {
    if (row.last_sent_at == null) continue;
    if (await repos.challenges.failInterruptedSend(row.id, row.last_sent_at, INTERRUPTED_SEND_ERROR, at, at - RESEND_COOLDOWN_MS))
      recovered++;
  }
  return recovered;
}

/**
 * One send this process abandoned while stopping (delivery/index.ts SendAbandoned): recovered at once, as the
 * recovery above would after a restart, instead of after SEND_DEADLINE_MS on PostgreSQL (where the recovery cannot
 * tell a stopped sender from a slow one). Answers whether it was still that pending send.
 */
export async function recoverAbandonedSend(repos: Repos, id: string, sentAt: number, at = Date.now()): Promise<boolean> {
  return (await repos.challenges.failInterruptedSend(id, sentAt, INTERRUPTED_SEND_ERROR, at, at - RESEND_COOLDOWN_MS)) !== undefined;
}
