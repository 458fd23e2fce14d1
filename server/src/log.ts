// The process's logger (pino, as Fastify uses it): one instance shared by the HTTP server's access log and the
// background jobs, so that both honour LOG_LEVEL and write the same JSON lines. Secrets never reach it.
import pino, { type DestinationStream, type Logger } from "pino";
import type { Config } from "./config.js";

/** Headers whose values never reach the logs. */
const REDACT = ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-challenge-token"]'];

export type Log = Logger;

/** `destination`: where the lines go (standard output unless given: tests read them). */
export function createLogger(config: Pick<Config, "LOG_LEVEL">, destination?: DestinationStream): Log {
  const options = {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT, censor: "[redacted]" },
    // Query strings carry challenge tokens: log the path only.
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: req.url.split("?")[0], id: req.id }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
