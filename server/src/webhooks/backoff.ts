// Retry schedule of webhook deliveries: exponential (×4) from a base, capped, with ±20 % jitter so that the
// retries of many deliveries failing together spread out. With the 15 s default base and 9 attempts the last
// retry comes about a day after the first attempt (15 s, 1 m, 4 m, 16 m, 64 m, 4.3 h, 10 h, 10 h).
export const RETRY_FACTOR = 4;
export const RETRY_CAP_FACTOR = 2400;

/** Delay before the attempt following attempt number `attempt` (1-based). */
export function retryDelay(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const raw = Math.min(baseMs * RETRY_FACTOR ** Math.max(0, attempt - 1), baseMs * RETRY_CAP_FACTOR);
  return Math.round(raw * (0.8 + 0.4 * random()));
}
