// What a refused challenge link says about itself. The token is base64url(JSON payload) "." signature
// (server/src/challenges/tokens.ts); checking the signature is the server's job, and the expiry the payload carries,
// readable by anyone, only chooses which dead end to show: "expired" or "not valid" (altered, forged).

/** Whether the token's own expiry has passed; false for anything that is not a readable token. */
export function linkExpired(token: string | null, now = Date.now()): boolean {
  try {
    const body = (token ?? "").split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/");
    const payload = JSON.parse(atob(body)) as { x?: unknown };
    return typeof payload.x === "number" && payload.x * 1000 <= now;
  } catch {
    return false;
  }
}
