// Delivery receipts of text messages ("delivery_status follows the delivery"; docs/challenges.md): each send gives the SMS
// provider a status-callback URL naming the challenge and the send, signed with a key derived from SERVER_KEY, so that
// only the provider that got the URL can report, and a late report of an older send never changes a newer one.
import { createHmac, timingSafeEqual } from "node:crypto";

/** The delivery states a receipt can move a challenge to; the rest ("queued", "sent", …) change nothing. */
export type Receipt = "delivered" | "bounced" | "failed";

/**
 * Provider words to ours. Twilio's `MessageStatus` (and our generic `status`): `undelivered` means the carrier could
 * not deliver to that number (our `bounced`), `failed` that it was never sent.
 */
const RECEIPTS: Record<string, Receipt> = { delivered: "delivered", undelivered: "bounced", bounced: "bounced", failed: "failed" };

export const receiptOf = (status: unknown): Receipt | undefined =>
  typeof status === "string" ? RECEIPTS[status.toLowerCase()] : undefined;

const sign = (key: Buffer, challengeId: string, send: number) =>
  createHmac("sha256", key).update(`${challengeId}.${send}`).digest("base64url").slice(0, 32);

export function callbackUrl(publicUrl: string, key: Buffer, challengeId: string, send: number): string {
  return `${publicUrl}/v3/delivery/text/${encodeURIComponent(challengeId)}/${send}/${sign(key, challengeId, send)}`;
}

export function callbackValid(key: Buffer, challengeId: string, send: number, token: string): boolean {
  const expected = Buffer.from(sign(key, challengeId, send));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
