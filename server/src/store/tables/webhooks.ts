// Tables of the webhooks area (docs/webhooks.md) and of the device operations it owns: endpoints, the durable outbox
// (events and one delivery per subscribed endpoint), legacy identifications and conversion markers.

export interface WebhookEndpointsTable {
  id: string;
  environment_id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  description: string | null;
  /** The `whsec_…` signing secret. Kept (not hashed) because every delivery is signed with it; never answered again. */
  secret: string;
  enabled: number;
  disabled_reason: string | null;
  /** Failed attempts since the last success; reset by a success. */
  consecutive_failures: number;
  /** `config:<key>` for an endpoint loaded from CONFIG_FILE (updated in place on restart); null when made by the API. */
  source_key: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookEventsTable {
  /** Also the Standard Webhooks message id (`webhook-id`), the same for every endpoint and attempt. */
  id: string;
  environment_id: string;
  event: string;
  /** JSON of the exact body delivered. */
  payload: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  environment_id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  /** When the next attempt is due; null once the delivery is settled. */
  next_attempt_at: number | null;
  /** A worker holds the delivery until this time; an expired lease (crash) makes it claimable again. */
  lease_until: number | null;
  lease_owner: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface IdentificationsTable {
  id: string;
  environment_id: string;
  device_id: string;
  fingerprint_id: string | null;
  confidence: number;
  /** Set by the backend's complete call (once). */
  user_id: string | null;
  access_id: string | null;
  new_device: number | null;
  completed_at: number | null;
  created_at: number;
  /** The browser's visitor token when it was only recognised as `device_id` by its fingerprint (migration 38). */
  pending_token: string | null;
}

/** A device whose sharer chose "create my own account": its next signup as another user is a conversion. */
export interface ConversionMarkersTable {
  id: string;
  environment_id: string;
  device_id: string;
  /** users.id of the account that was being shared. */
  from_user_id: string | null;
  challenge_id: string | null;
  converted_user_id: string | null;
  converted_at: number | null;
  created_at: number;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  identifications: IdentificationsTable;
  conversion_markers: ConversionMarkersTable;
}
