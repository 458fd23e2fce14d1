// A message of the development outbox as GET /v3/dev/outbox answers it.
import type { Channel, DevOutboxMessage } from "@tessera/sdk/contract";
import type { DevOutboxRow } from "../store/challenges.js";
import { iso } from "../time.js";

export function toWireOutboxMessage(row: DevOutboxRow): DevOutboxMessage {
  const m: DevOutboxMessage = {
    id: row.id,
    challenge_id: row.challenge_id,
    channel: row.channel as Channel,
    recipient: row.recipient,
    subject: row.subject,
    body: row.body,
    createdAt: iso(Number(row.created_at)),
    created_at: iso(Number(row.created_at)),
  };
  if (row.code) m.code = row.code;
  return m;
}
