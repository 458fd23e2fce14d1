// Table of the shared rate limiter (../rate-limits.ts): one row per limited key, the counts of its current and
// previous window, so that instances behind one load balancer count together.

export interface RateLimitsTable {
  key: string;
  /** Start of the current window, ms since the epoch, a multiple of the window length. */
  window_start: number;
  /** Hits in the current window. */
  count: number;
  /** Hits in the window before it (the sliding-window estimate weighs them down as the current one advances). */
  prev_count: number;
  /** When the row stops mattering (end of the next window); pruned after. */
  expires_at: number;
}

export type RateLimitTables = {
  rate_limits: RateLimitsTable;
};
