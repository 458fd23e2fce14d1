// Which browser origins an environment accepts: its allow-list, this server's own, and in development
// any origin on this machine. The client API's CORS check (auth.ts) and the return URLs (challenges/return-urls.ts) ask.
import type { EnvironmentRecord } from "../store/projects.js";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** An origin on this machine (localhost, 127.0.0.1, [::1], *.localhost): allowed in development. */
export function isLocalOrigin(origin: string): boolean {
  try {
    const { hostname } = new URL(origin);
    return LOCAL_HOSTS.has(hostname) || hostname.endsWith(".localhost");
  } catch {
    return false;
  }
}

/** Whether a browser origin may use this environment's client id: the allow-list, or localhost in development. */
export function originAllowed(env: EnvironmentRecord, origin: string, ownOrigin: string): boolean {
  if (origin === ownOrigin) return true;
  if (env.allowedOrigins.includes(origin) || env.allowedOrigins.includes("*")) return true;
  return env.name === "development" && isLocalOrigin(origin);
}
