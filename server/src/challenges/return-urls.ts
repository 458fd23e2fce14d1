// Where the hosted app may send the browser back to ("Return URLs"; docs/security.md): a policy's success_url and
// signup_url, or by default the page the challenge started from (signals.url, which the browser sends and an
// attacker writes). Only http(s) URLs on the environment's allowed origins (https in production), this server, or
// in development a localhost origin; a wildcard "*" allows browsers from anywhere but sends nobody anywhere.
import type { PolicyChallenge } from "@tessera/sdk/contract";
import { isLocalOrigin } from "../domain/origins.js";
import { badRequest } from "../errors.js";
import type { EnvironmentRecord } from "../store/projects.js";

export function returnUrlAllowed(env: Pick<EnvironmentRecord, "name" | "allowedOrigins">, raw: string, ownOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && (url.protocol !== "http:" || env.name === "production")) return false;
  if (url.username || url.password) return false;
  const origin = url.origin;
  if (origin === ownOrigin || env.allowedOrigins.includes(origin)) return true;
  return env.name === "development" && isLocalOrigin(origin);
}

/** The URL if allowed now (origins may have changed since it was written), else undefined: dropped, not followed. */
export function allowedReturnUrl(
  env: Pick<EnvironmentRecord, "name" | "allowedOrigins">,
  raw: string | null | undefined,
  ownOrigin: string,
): string | undefined {
  return raw && returnUrlAllowed(env, raw, ownOrigin) ? raw : undefined;
}

/** Refuses a policy challenge whose return URLs are not allowed, naming the field (policy write: 400). */
export function checkReturnUrls(
  env: Pick<EnvironmentRecord, "name" | "allowedOrigins">,
  challenge: Pick<PolicyChallenge, "success_url" | "signup_url"> | null | undefined,
  ownOrigin: string,
): void {
  for (const field of ["success_url", "signup_url"] as const) {
    const url = challenge?.[field];
    if (url !== undefined && !returnUrlAllowed(env, url, ownOrigin)) {
      throw badRequest(
        `challenge.${field} must be an ${env.name === "production" ? "https" : "http(s)"} URL on one of the environment's allowed origins`,
        `challenge.${field}`,
      );
    }
  }
}
