// Webhook endpoints (SPEC.md 5, 9): registration with URL rules and a signing secret shown once, listing,
// deletion, delivery history and the re-send of a failed delivery.
import { randomBytes } from "node:crypto";
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from "@tessera/sdk/contract";
import { badRequest, conflict, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { toWireDelivery, toWireEndpoint } from "../store/webhooks.js";
import { now } from "../time.js";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A Standard Webhooks secret: `whsec_` and base64 of 24 random bytes (the library decodes standard base64). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** https everywhere; plain http only to this machine from a development environment. */
export function checkEndpointUrl(env: Pick<EnvironmentRecord, "name">, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest("url must be an absolute URL", "url");
  }
  if (url.username || url.password) throw badRequest("url must not carry credentials", "url");
  if (url.protocol === "https:") return url.toString();
  const local = LOCAL_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost");
  if (url.protocol === "http:" && local && env.name === "development") return url.toString();
  throw badRequest(
    env.name === "development" ? "url must use https (http is allowed only for localhost)" : "url must use https in production",
    "url",
  );
}

export class WebhookEndpointsService {
  constructor(private readonly repos: Repos) {}

  async create(env: EnvironmentRecord, req: { url: string; events: WebhookEvent[]; description?: string }): Promise<WebhookEndpoint> {
    const url = checkEndpointUrl(env, req.url);
    const secret = newSigningSecret();
    const t = now();
    const row = {
      id: newId("whe"),
      environment_id: env.id,
      url,
      events: JSON.stringify([...new Set(req.events)]),
      description: req.description ?? null,
      secret,
      enabled: 1,
      disabled_reason: null,
      consecutive_failures: 0,
      created_at: t,
      updated_at: t,
    };
    await this.repos.webhooks.createEndpoint(row);
    // The only time the secret is answered.
    return { ...toWireEndpoint(row), secret };
  }

  async list(env: EnvironmentRecord): Promise<WebhookEndpoint[]> {
    return (await this.repos.webhooks.listEndpoints(env.id)).map(toWireEndpoint);
  }

  async remove(env: EnvironmentRecord, id: string): Promise<void> {
    if (!(await this.repos.webhooks.deleteEndpoint(env.id, id))) throw notFound("Webhook endpoint");
  }

  async deliveries(
    env: EnvironmentRecord,
    id: string,
    page: number,
    limit: number,
  ): Promise<{ data: WebhookDelivery[]; total: number; page: number; limit: number }> {
    if (!(await this.repos.webhooks.findEndpoint(env.id, id))) throw notFound("Webhook endpoint");
    const { rows, total } = await this.repos.webhooks.listDeliveries(env.id, id, page, limit);
    return { data: rows.map(toWireDelivery), total, page, limit };
  }

  /** Re-sends a failed delivery: a fresh round of attempts from now; re-enables a disabled endpoint. */
  async retry(env: EnvironmentRecord, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    const endpoint = await this.repos.webhooks.findEndpoint(env.id, endpointId);
    if (!endpoint) throw notFound("Webhook endpoint");
    const existing = await this.repos.webhooks.findDelivery(env.id, endpointId, deliveryId);
    if (!existing) throw notFound("Webhook delivery");
    const t = now();
    const row = await this.repos.webhooks.requeueFailed(env.id, deliveryId, t);
    if (!row) throw conflict("conflict", `Only a failed delivery can be re-sent; this one is ${existing.status}`);
    await this.repos.webhooks.enableEndpoint(endpointId, t);
    return toWireDelivery(row);
  }
}
