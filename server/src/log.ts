// The process's logger (pino, as Fastify uses it): one instance shared by the HTTP server's access log and the
// background jobs, so that both honour LOG_LEVEL and write the same JSON lines. Secrets never reach it: credential
// headers are censored, and a logged URL is its path with every credential in it replaced (loggedPath).
import pino, { type DestinationStream, type Logger } from "pino";
import type { Config } from "./config.js";

/** Headers whose values never reach the logs. */
const REDACT = ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-challenge-token"]'];

/** Path parameters that are credentials: the SMS provider's signed delivery-callback token (routes/delivery-callbacks.ts). */
const SECRET_PARAMS = new Set(["token"]);
/** A secret key wherever it turns up in a path (a script that put one where a key id goes). */
const SECRET_KEY = /^sk_(test|live)_/i;
const REDACTED = "[redacted]";

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The URL as a log line may show it: the path only — query strings and fragments carry challenge tokens and sign-in
 * link tokens (the hosted challenge app's `?id=…&token=…`, `/console/#/welcome?token=…`) — with each segment that the
 * route names a credential (`:token`), or that looks like a secret key, replaced by `[redacted]`.
 */
export function loggedPath(url: string, route?: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? "";
  const segments = path.split("/");
  const pattern = route?.split("/");
  const named = pattern && pattern.length === segments.length ? pattern : undefined;
  return segments
    .map((segment, i) => {
      const p = named?.[i];
      if (p?.startsWith(":") && SECRET_PARAMS.has(p.slice(1))) return REDACTED;
      return SECRET_KEY.test(decoded(segment)) ? REDACTED : segment;
    })
    .join("/");
}

export type Log = Logger;

/** `destination`: where the lines go (standard output unless given: tests read them). */
export function createLogger(config: Pick<Config, "LOG_LEVEL">, destination?: DestinationStream): Log {
  const options = {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT, censor: REDACTED },
    serializers: {
      req: (req: { method: string; url: string; id: string; routeOptions?: { url?: string } }) => ({
        method: req.method,
        url: loggedPath(req.url, req.routeOptions?.url),
        id: req.id,
      }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
