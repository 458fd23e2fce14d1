// One-time codes (docs/challenges.md): 6 digits uniform over 000000–999999 from a CSPRNG, stored only as a hash bound to
// the challenge, compared in constant time. The hash is an HMAC under a server key (docs/security.md): a bare SHA-256 of a
// million possible codes is reversed by trying them all, from any copy of the database.
import { createHmac, randomInt, timingSafeEqual } from "node:crypto";

export const MAX_VERIFY_ATTEMPTS = 5;
/** Resends: at most this many codes per challenge, at least this long apart. */
export const MAX_SENDS = 5;
export const RESEND_COOLDOWN_MS = 30 * 1000;

export const newCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, "0");

/** `key`: ServerKeys.codeHash (secrets.ts). */
export const hashCode = (key: Buffer, challengeId: string, code: string): string =>
  createHmac("sha256", key).update(`${challengeId}:${code}`).digest("hex");

export function codeMatches(key: Buffer, challengeId: string, code: string, storedHash: string): boolean {
  const a = Buffer.from(hashCode(key, challengeId, code), "hex");
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

/**
 * What a challenge link may read of the user (docs/security.md): contacts masked, in a challenge or a challenge view. The
 * link travels in a URL (history, logs, a shoulder): it must not hand out a full address to whoever holds it.
 */
export function maskUserContacts<T>(payload: T): T {
  const p = payload as { user?: { email?: string; phone?: string }; challenge?: { user?: { email?: string; phone?: string } } };
  const user = p?.challenge?.user ?? p?.user;
  if (user?.email) user.email = maskEmail(user.email);
  if (user?.phone) user.phone = maskPhone(user.phone);
  return payload;
}
