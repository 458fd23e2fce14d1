// Tables of the challenges area: challenges (with their hashed code) and the development outbox of sent codes.
export interface ChallengesTable {
  id: string;
  environment_id: string;
  evaluation_id: string;
  user_id: string | null;
  device_id: string | null;
  type: string;
  status: string;
  /** JSON PolicyChallenge: channels, require, allow_skip, success_url, device_limit… */
  config: string;
  /** JSON array of channels codes were sent through, in order. */
  channels: string;
  reasons: string;
  origin_url: string | null;
  delivery_status: string | null;
  delivery_error: string | null;
  email_verified: number;
  phone_verified: number;
  verify_attempts: number;
  send_count: number;
  last_sent_at: number | null;
  /** sha256(challenge id + code): the code itself is never stored. */
  code_hash: string | null;
  code_channel: string | null;
  code_expires_at: number | null;
  signup_chosen_at: number | null;
  /** The browser that raised it: a hash of its visitor token, else of its device (challenges/budgets.ts; migration 26). */
  source_key: string | null;
  /** That request's network as a per-source budget counts it (IPv4 /24, IPv6 /64). */
  source_network: string | null;
  /** 1: the user's backend vouched for that browser; its budgets are its own. */
  source_vouched: number;
  /** 1: raised only because the browser claimed other contacts (contact_mismatch). */
  contact_only: number;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

export interface DevOutboxTable {
  id: string;
  environment_id: string;
  challenge_id: string;
  channel: string;
  recipient: string;
  subject: string;
  body: string;
  /** The one-time code the message carries (development only: this table exists for it). */
  code: string | null;
  created_at: number;
}

export interface ChallengeTables {
  challenges: ChallengesTable;
  dev_outbox: DevOutboxTable;
}
