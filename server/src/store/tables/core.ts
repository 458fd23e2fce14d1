// Core tables: projects, environments, keys, settings, users, fingerprints, devices, evaluations, access records.
export interface SettingsTable {
  key: string;
  value: string;
}

export interface ProjectsTable {
  id: string;
  name: string;
  /** JSON: { logo_url?, color?, default_device_limit?, admin_email? } */
  settings: string;
  created_at: number;
  updated_at: number;
}

export interface EnvironmentsTable {
  id: string;
  project_id: string;
  name: "development" | "production";
  client_id: string;
  /** JSON array of allowed origins for the client API. */
  allowed_origins: string;
  /** JSON: { identity_verification? } — settings of this environment alone (projects.settings holds shared ones). */
  settings: string;
  /** The identity secret (docs/security.md), sealed under the server key; null until one is created. */
  identity_secret: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  environment_id: string;
  /** sha256 of the secret, hex; the secret itself is never stored. */
  hash: string;
  /** First characters of the secret, to recognise a key in listings. */
  prefix: string;
  /** What the key is for (`tessera keys create --label`); null for keys made before labels existed. */
  label: string | null;
  created_at: number;
  revoked_at: number | null;
  /** When the key last authenticated a request, to the minute (migration 33); null until its first use since. */
  last_used_at: number | null;
}

export interface UsersTable {
  /** service_id */
  id: string;
  environment_id: string;
  /** The customer application's user id. */
  external_id: string;
  email: string | null;
  phone: string | null;
  email_verified: number;
  phone_verified: number;
  metadata: string;
  groups: string;
  skip_challenge_count: number;
  converted_at: number | null;
  /** 1 while a user first seen on a login is not confirmed by the customer's backend (docs/identity.md). */
  provisional: number;
  /** The normalised email (pipeline/account-email.ts) an email-only evaluation finds its account by. */
  email_key: string | null;
  created_at: number;
  updated_at: number;
}

export interface FingerprintsTable {
  id: string;
  environment_id: string;
  /** Coarse key of the most stable components, indexed to find match candidates without a scan. */
  coarse_key: string;
  /** Exact hash of all components, for the confidence-1 fast path. */
  exact_hash: string;
  /** JSON of the normalised components kept for drift matching. */
  components: string;
  /** 1 once many visitor tokens on many networks presented it: it no longer links accounts or merges devices. */
  popular: number;
  created_at: number;
  last_seen_at: number;
}

export interface DevicesTable {
  id: string;
  environment_id: string;
  /** users.id (service id) of the user it is attached to, if any. */
  user_id: string | null;
  visitor_token: string | null;
  /** The token it carried before its browser came back without it (docs/identity.md): still finds the device. */
  previous_token: string | null;
  /**
   * The latest token a browser presented when it was recognised as this device by its fingerprint, not vouched for
   * (migration 27): recognises it again, never trusts it (docs/identity.md, "Recognition and trust").
   */
  recognised_token: string | null;
  fingerprint_id: string | null;
  status: "attached" | "detached";
  type: "computer" | "tablet" | "mobile";
  info: string;
  metadata: string;
  attached_at: number | null;
  detached_at: number | null;
  /** Set when the device was detached and the SDK has not yet been told to log out. */
  logout_pending: number;
  last_seen_at: number | null;
  last_ip: string | null;
  created_at: number;
  updated_at: number;
}

export interface EvaluationsTable {
  id: string;
  environment_id: string;
  action: string;
  verdict: string;
  /** JSON array */
  reasons: string;
  redirect: string | null;
  user_id: string | null;
  device_id: string | null;
  fingerprint_id: string | null;
  fingerprint_confidence: number | null;
  access_id: string | null;
  challenge_id: string | null;
  /** The address the client came from, as it came (the API shows it). */
  ip: string | null;
  /**
   * The per-IP key every per-IP count reads (geo/ip.ts, perIpKey; migration 37): the IPv4 address, an IPv6 address's
   * /64. Null without an address.
   */
  ip_key: string | null;
  country_code: string | null;
  latitude: number | null;
  longitude: number | null;
  /** The IP's /24 or /48 (migration 15). */
  network: string | null;
  /** The IP's ASN when its network belongs to its users (not a cloud, VPN or proxy provider's); migration 15. */
  asn: number | null;
  /** 1 when the network is not a VPN, proxy, Tor or hosting exit (its geolocation's `security` all false); migration 21. */
  somewhere: number;
  /** The IP's ASN when its network is a VPN, proxy, Tor or hosting exit, else null; migration 21. */
  provider_asn: number | null;
  /** The browser's time zone, the canonical IANA name of a place (not UTC nor an Etc/ offset), else null; migration 22. */
  timezone: string | null;
  /** The browser's language, a canonical BCP 47 tag (navigator.language), else null; migration 24. */
  language: string | null;
  /**
   * JSON object: the values this evaluation makes familiar to its user once trusted, by familiarity dimension
   * (migration 30; store/familiarity.ts writes them to the ledger when it is confirmed); null without a user.
   */
  familiar: string | null;
  /** JSON blobs of the embedded objects, as answered on the wire. */
  geolocation: string | null;
  policy: string | null;
  risks: string | null;
  checks: string | null;
  metadata: string | null;
  consumed: number;
  consumed_at: number | null;
  /**
   * 1 once the customer's backend or the user vouched for it: consumed while it let the user in, sent by the backend
   * or with a signed user id, or its challenge passed (migration 23). Trusted history reads these, and what the same
   * user's confirmed devices (device_confirmations) let in.
   */
  confirmed: number;
  /**
   * The request's visitor token when its device was recognised by its fingerprint, not found by that token: the
   * device takes it once the evaluation is confirmed (store/history.ts, confirmDevice); else null. Migration 27.
   */
  pending_token: string | null;
  created_at: number;
  updated_at: number;
}

export interface AccessRecordsTable {
  id: string;
  environment_id: string;
  device_id: string;
  user_id: string | null;
  confidence: number;
  metadata: string;
  created_at: number;
  updated_at: number;
}

/** A login naming a provisional user (docs/identity.md): what credential-stuffing counts are counted from. */
export interface LoginAttemptsTable {
  id: string;
  environment_id: string;
  user_id: string;
  /** The browser: its visitor token ("t:…") when it sent one, else its device ("d:…"). */
  device_key: string | null;
  fingerprint_id: string | null;
  /** The IP's per-IP key (geo/ip.ts, perIpKey): the IPv4 address, or an IPv6 address's /64 (migration 37). */
  ip: string | null;
  /** The IP's network: its /24 (IPv4) or /48 (IPv6). */
  network: string | null;
  created_at: number;
}

/**
 * A device on which a user has a confirmed evaluation (migration 23): the user signed in there. What the device then
 * lets the user do counts as the user's own in trusted history; detaching the device, or erasing the user, ends it.
 */
export interface DeviceConfirmationsTable {
  environment_id: string;
  device_id: string;
  user_id: string;
  created_at: number;
}

export interface CoreTables {
  settings: SettingsTable;
  projects: ProjectsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  users: UsersTable;
  fingerprints: FingerprintsTable;
  devices: DevicesTable;
  evaluations: EvaluationsTable;
  access_records: AccessRecordsTable;
  login_attempts: LoginAttemptsTable;
  device_confirmations: DeviceConfirmationsTable;
}
