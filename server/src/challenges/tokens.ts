// Signed, expiring challenge tokens carried in the redirect URL: each grants access to one challenge only.
// Format: base64url(JSON payload) "." base64url(HMAC-SHA256(payload)); compared in constant time.
import { createHmac, timingSafeEqual } from "node:crypto";

export interface ChallengeTokenPayload {
  /** challenge id */
  c: string;
  /** environment id */
  e: string;
  /** expiry, seconds since the epoch */
  x: number;
}

export class ChallengeTokens {
  constructor(private readonly secret: string) {}

  private mac(body: string): Buffer {
    return createHmac("sha256", this.secret).update(body).digest();
  }

  sign(payload: ChallengeTokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.mac(body).toString("base64url")}`;
  }

  /** The payload of a well-signed token, with `expired` when its time has passed; undefined when forged or malformed. */
  verify(token: string, at = Date.now()): (ChallengeTokenPayload & { expired: boolean }) | undefined {
    const [body, sig, extra] = token.split(".");
    if (!body || !sig || extra !== undefined || token.length > 2048) return undefined;
    const given = Buffer.from(sig, "base64url");
    const expected = this.mac(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const p = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as ChallengeTokenPayload;
      if (typeof p.c !== "string" || typeof p.e !== "string" || typeof p.x !== "number") return undefined;
      return { ...p, expired: p.x * 1000 <= at };
    } catch {
      return undefined;
    }
  }
}
