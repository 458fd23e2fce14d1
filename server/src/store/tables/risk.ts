// Tables of the risk area: policies, lists and their entries, per-environment seeding state, content history.
export interface PoliciesTable {
  id: string;
  environment_id: string;
  name: string;
  description: string | null;
  /** 0/1 */
  enabled: number;
  /** JSON array of action names; empty means every action. */
  actions: string;
  priority: number;
  /** JSON condition tree (docs/policies.md). */
  conditions: string;
  verdict: string;
  /** JSON PolicyChallenge, for challenge verdicts. */
  challenge: string | null;
  /** Where it came from: api, default, config (a config-file policy is replaced at each start). */
  source: string;
  /** Stable key of a default or config-file policy, so reloading updates it instead of adding another. */
  source_key: string | null;
  /**
   * For a row written from a shipped default: the digest of that default's rule (policyDigest). While the row's rule
   * still has it, nobody edited it, and a later release's improved default replaces it (migration 25).
   */
  default_digest: string | null;
  created_at: number;
  updated_at: number;
}

export interface ListEntriesTable {
  environment_id: string;
  list_id: string;
  /** Normalised value (trimmed; lower-cased unless it is an id). */
  value: string;
  comment: string | null;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface RiskEnvironmentsTable {
  environment_id: string;
  /** When the default policies were created; set once, so deleting them all does not bring them back. */
  defaults_seeded_at: number;
}

export interface ContentHashesTable {
  id: string;
  environment_id: string;
  /** sha256 of the normalised text of a content submission. */
  hash: string;
  user_id: string | null;
  created_at: number;
}

export interface RiskTables {
  policies: PoliciesTable;
  list_entries: ListEntriesTable;
  risk_environments: RiskEnvironmentsTable;
  content_hashes: ContentHashesTable;
}
