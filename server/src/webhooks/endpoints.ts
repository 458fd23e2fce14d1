// Webhook endpoints (docs/server-api.md, docs/webhooks.md): registration with URL rules and a signing secret shown once, listing,
// deletion, delivery history and the re-send of a failed delivery. In production no URL may point inside the network
// (docs/security.md): refused here by address, and again at connect time by the transport (transport.ts).
import { randomBytes } from "node:crypto";
import { type WebhookDelivery, type WebhookEndpoint, type WebhookEvent, WebhookPayload } from "@tessera/sdk/contract";
import ipaddr from "ipaddr.js";
import type { Config } from "../config.js";
import { ApiError, conflict, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { iso, now } from "../time.js";
import { toWireDelivery, toWireEndpoint } from "../wire/webhooks.js";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Names that always mean this machine or the cloud's metadata service, whatever DNS says. */
const INTERNAL_NAMES = new Set(["localhost", "metadata.google.internal", "metadata.goog"]);

/** Production refuses internal addresses unless WEBHOOK_ALLOW_PRIVATE=1 (receivers inside the operator's network). */
export const privateAddressesBlocked = (config: Pick<Config, "isDev" | "WEBHOOK_ALLOW_PRIVATE">): boolean =>
  !config.isDev && !config.WEBHOOK_ALLOW_PRIVATE;

const invalidUrl = (message: string) => new ApiError(400, "invalid_url", message, "url");

/**
 * Whether a URL's host is an internal address by its very text: an IP literal outside public unicast space (loopback,
 * RFC 1918, ULA, link-local and so 169.254.169.254, CGNAT, multicast, unspecified, IPv4-mapped forms of those…) or a
 * name that means this machine. Names are resolved only at connect time, where the address actually used is checked.
 */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (ipaddr.isValid(host)) return ipaddr.parse(host).range() !== "unicast";
  const name = host.toLowerCase().replace(/\.$/, "");
  return INTERNAL_NAMES.has(name) || name.endsWith(".localhost");
}

/** A Standard Webhooks secret: `whsec_` and base64 of 24 random bytes (the library decodes standard base64). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * https everywhere; plain http only to this machine from a development environment; in production (`blockPrivate`) no
 * internal address at all.
 */
export function checkEndpointUrl(env: Pick<EnvironmentRecord, "name">, raw: string, blockPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidUrl("url must be an absolute URL");
  }
  if (url.username || url.password) throw invalidUrl("url must not carry credentials");
  if (blockPrivate && isInternalHost(url.hostname))
    throw invalidUrl("url must not point to a loopback, private, link-local or metadata address (WEBHOOK_ALLOW_PRIVATE=1 allows it)");
  if (url.protocol === "https:") return url.toString();
  const local = LOCAL_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost");
  if (url.protocol === "http:" && local && env.name === "development") return url.toString();
  throw invalidUrl(
    env.name === "development" ? "url must use https (http is allowed only for localhost)" : "url must use https in production",
  );
}

export class WebhookEndpointsService {
  constructor(
    private readonly repos: Repos,
    private readonly config: Pick<Config, "isDev" | "WEBHOOK_ALLOW_PRIVATE">,
  ) {}

  async create(env: EnvironmentRecord, req: { url: string; events: WebhookEvent[]; description?: string }): Promise<WebhookEndpoint> {
    const url = checkEndpointUrl(env, req.url, privateAddressesBlocked(this.config));
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
      source_key: null,
      created_at: t,
      updated_at: t,
    };
    await this.repos.webhooks.createEndpoint(row);
    // The only time the secret is answered.
    return { ...toWireEndpoint(row), secret };
  }

  /**
   * An endpoint from CONFIG_FILE, keyed so that a restart updates it rather than adding a copy; the same URL rules as
   * the API. Its secret comes from the file (no answer shows it), so the operator knows what to verify with.
   */
  async upsertFromConfig(
    env: Pick<EnvironmentRecord, "id" | "name">,
    key: string,
    e: { url: string; events: WebhookEvent[]; secret: string; description?: string },
  ): Promise<void> {
    const url = checkEndpointUrl(env, e.url, privateAddressesBlocked(this.config));
    await this.repos.webhooks.upsertEndpointByKey({
      id: newId("whe"),
      environment_id: env.id,
      url,
      events: JSON.stringify([...new Set(e.events)]),
      description: e.description ?? null,
      secret: e.secret,
      source_key: `config:${key}`,
      created_at: now(),
    });
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

  /**
   * "Send a test event" (the console; docs/console.md): one of the endpoint's events (the first it wants, or `event`), with
   * `test: true` and a sample object, delivered to this endpoint only, signed and retried like any other.
   */
  async sendTest(env: EnvironmentRecord, endpointId: string, event?: WebhookEvent): Promise<WebhookDelivery> {
    const endpoint = await this.repos.webhooks.findEndpoint(env.id, endpointId);
    if (!endpoint) throw notFound("Webhook endpoint");
    const wanted = JSON.parse(endpoint.events) as WebhookEvent[];
    const name = event ?? wanted[0] ?? "challenge.completed";
    const at = now();
    const stamps = { createdAt: iso(at), updatedAt: iso(at) };
    const user = { service_id: "usr_test", id: "test_user", metadata: {}, groups: [], ...stamps };
    const object = name.startsWith("challenge.")
      ? { challenge: { id: "chl_test", status: name === "challenge.completed" ? "completed" : "created", ...stamps } }
      : name === "device.detached"
        ? {
            device: { id: "dev_test", status: "detached", type: "computer", info: {}, metadata: {}, actively_connected: false, ...stamps },
          }
        : { user, ...(name === "account_sharing.admin_notified" ? { admin_email: "admin@example.com" } : {}) };
    // A sample of the event's payload as the contract defines it (sdk/src/contract/webhook.ts).
    const payload = WebhookPayload.parse({
      id: newId("evt"),
      event: name,
      created_at: iso(at),
      test: true,
      account: "test_user",
      ...object,
    });
    const row = await this.repos.webhooks.enqueueFor(this.repos.webhooks.newEventRow(env.id, name, payload, at), endpoint.id);
    return toWireDelivery(row);
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
