// Table of the velocity counters (../history.ts): evaluations per user, IP and browser, counted in time buckets by
// an atomic upsert, so that evaluations arriving together each see the others (docs/operations.md).

export interface VelocityCountersTable {
  /** `u:`, `i:` or `f:` and a hash of the environment and the user id, IP or fingerprint id (no personal data in clear). */
  key: string;
  /** The bucket's number: its start divided by its width (a twelfth of the check's window). */
  bucket: number;
  /** Evaluations counted in the bucket. */
  count: number;
  /** When the bucket leaves the window; pruned after. */
  expires_at: number;
}

export type VelocityTables = {
  velocity_counters: VelocityCountersTable;
};
