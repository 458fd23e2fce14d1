// The job outbox (jobs/outbox.ts): work a change leaves to do after its transaction commits (an email to send),
// written in that transaction, run after the response by a worker under a lease, deleted once done.

export interface JobsTable {
  id: string;
  /** The handler's name (jobs/outbox.ts: JOB_KINDS). */
  kind: string;
  /** JSON: what the handler needs. */
  payload: string;
  attempts: number;
  /** Due from this time (a retry waits; a new job is due at once). */
  run_at: number;
  /** A worker holds the job until then; another takes it over after (its worker stopped mid-run). */
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
}

export interface JobTables {
  jobs: JobsTable;
}
