// Webhook endpoints and deliveries as the API answers them (docs/server-api.md).
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from "@tessera/sdk/contract";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "../store/webhooks.js";
import { iso, isoOrUndefined } from "../time.js";

export function toWireEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  const e: WebhookEndpoint = {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEvent[],
    enabled: row.enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (row.description) e.description = row.description;
  if (row.disabled_reason) e.disabled_reason = row.disabled_reason;
  return e;
}

export function toWireDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  const d: WebhookDelivery = {
    id: row.id,
    event_id: row.event_id,
    event: row.event as WebhookEvent,
    status: row.status,
    attempts: row.attempts,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (row.last_status_code != null) d.last_status_code = row.last_status_code;
  if (row.last_error) d.last_error = row.last_error;
  const next = row.status === "pending" ? isoOrUndefined(row.next_attempt_at) : undefined;
  if (next) d.next_attempt_at = next;
  const delivered = isoOrUndefined(row.delivered_at);
  if (delivered) d.delivered_at = delivered;
  return d;
}
