// The webhook outbox as the pipeline's EventSink (docs/webhooks.md): an event and its deliveries are written in the
// caller's transaction, so an event exists if and only if the change that caused it was committed.
import { WEBHOOK_EVENTS, WEBHOOK_PAYLOADS, type WebhookEvent } from "@tessera/sdk/contract";
import { newId } from "../ids.js";
import type { EventSink } from "../pipeline/ports.js";
import type { Repos } from "../store/repos.js";
import { iso, now } from "../time.js";

export class OutboxSink implements EventSink {
  constructor(private readonly repos: Repos) {}

  /**
   * Records `event` for the environment with `data` as the rest of the payload (`account`, and the event's object
   * under its own name: `challenge`, `device` or `user`). Written in the current transaction: the caller's change. The
   * payload is written as the contract's schema of the event reads it (WEBHOOK_PAYLOADS): a key it does not declare is
   * dropped, a payload that does not match it throws (a bug, loud in the tests) instead of being sent.
   */
  async emit(environmentId: string, event: string, data: Record<string, unknown>): Promise<void> {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) throw new Error(`Unknown webhook event ${event}`);
    const at = now();
    const payload = WEBHOOK_PAYLOADS[event as WebhookEvent].parse({ id: newId("evt"), event, created_at: iso(at), ...data });
    await this.repos.webhooks.enqueue(this.repos.webhooks.newEventRow(environmentId, event, payload, at));
  }
}
