// One-time codes (SPEC.md 7): 6 digits uniform over 000000–999999 from a CSPRNG, stored only as a hash bound to
// the challenge, compared in constant time.
import { createHash, randomInt, timingSafeEqual } from "node:crypto";

export const CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_VERIFY_ATTEMPTS = 5;
/** Resends: at most this many codes per challenge, at least this long apart. */
export const MAX_SENDS = 5;
export const RESEND_COOLDOWN_MS = 30 * 1000;

export const newCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, "0");

export const hashCode = (challengeId: string, code: string): string => createHash("sha256").update(`${challengeId}:${code}`).digest("hex");

export function codeMatches(challengeId: string, code: string, storedHash: string): boolean {
  const a = Buffer.from(hashCode(challengeId, code), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** a***@example.com, +33 ••• •• 78 */
export function maskEmail(email: string): string {
  const [local = "", domain = ""] = email.split("@");
  return `${local.slice(0, 1)}${"*".repeat(Math.max(1, Math.min(local.length - 1, 6)))}@${domain}`;
}

export function maskPhone(phone: string): string {
  return `${phone.slice(0, 3)}${"•".repeat(Math.max(0, phone.length - 5))}${phone.slice(-2)}`;
}
