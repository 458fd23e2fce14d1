// Names of the SQL texts sent as named statements on PostgreSQL (store/db.ts): parsed and planned once per connection
// instead of on every call. The prepared queries of the hot path (store/prepared.ts) and the write batches
// (store/write-batch.ts) register theirs; one entry per text the code builds (bounded).
const statementNames = new Map<string, string>();
let named = 0;

/** The statement name of a SQL text (undefined: not one of them, sent unnamed). */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/** Sends `sql` as a named statement from now on. */
export function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `tsr_${++named}`);
}

/**
 * PostgreSQL refused to reuse a named statement ("cached plan must not change result type": a migration changed a
 * table under a running instance): later calls prepare the text again under a new name on every connection.
 */
export function renameStatement(sql: string): void {
  if (statementNames.has(sql)) statementNames.set(sql, `tsr_${++named}`);
}
