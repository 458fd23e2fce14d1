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
