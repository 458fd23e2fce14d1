// Table of the familiarity ledger (migration 30, store/familiarity.ts): what each user was let in with, one row per
// dimension and value (a country, a provider's ASN, a time zone, a language, …), written when an evaluation becomes
// trusted. A new "is new X" check adds a dimension, not a column (docs/detection.md, "How to add a check").

export interface FamiliarityTable {
  environment_id: string;
  /** users.id (the service id). */
  user_id: string;
  /** The dimension's name, as the check family that records it names it (server/src/checks/families/familiarity.ts). */
  dimension: string;
  value: string;
  /** created_at of the earliest and the latest trusted evaluation of the user with this value. */
  first_seen: number;
  /** Retention removes the row once the latest such evaluation is older than the retention period (as it is removed). */
  last_seen: number;
}

export interface FamiliarityTables {
  familiarity: FamiliarityTable;
}
