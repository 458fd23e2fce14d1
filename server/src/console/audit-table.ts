// Which writes of the server API go to the audit log (docs/console.md "The audit log"), as one table: every route that
// changes who receives codes, which devices count, or how the environment decides and tells (lists, policies, webhook
// endpoints, keys, settings, challenge overrides), with what its entry names and keeps. Every other write route of
// /v2 and /v3 is listed in NOT_AUDITED with the reason; a write route in neither table stops the server from building
// (console/audit.ts), so a new route cannot be forgotten. Recorded for a secret key or a console session alike.
import type { FastifyRequest } from "fastify";
import type { ChallengeService } from "../challenges/service.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import type { WebhookEndpointsService } from "../webhooks/endpoints.js";
import { toWireDevice } from "../wire/devices.js";
import { toWirePolicy } from "../wire/policies.js";
import { readSettings } from "./settings.js";

/** What an entry's `before` reads the target with: the repositories, and the services that answer as the API does. */
export interface AuditReaders {
  repos: Repos;
  challenges: ChallengeService;
  webhookEndpoints: WebhookEndpointsService;
}

export interface AuditSpec {
  /** e.g. policy.update */
  action: string;
  targetType: string;
  /** The path parameter naming the target, if any. */
  idParam?: string;
  /** Reads the target before the change (for the entry's `before`). */
  before?: (services: AuditReaders, env: EnvironmentRecord, req: FastifyRequest) => Promise<unknown>;
  /** What the entry keeps as `after`: the answer (default), the request body, or nothing. */
  after?: "response" | "body" | "none";
}

const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name] ?? "";

const policyBefore: AuditSpec["before"] = async (s, env, req) => {
  const row = await s.repos.policies.find(env.id, param(req, "id"));
  return row && toWirePolicy(row, env.name);
};

/** The device as the API shows it, with the account it belonged to (a detach's or an attach's "before"). */
const deviceBefore =
  (name: string): AuditSpec["before"] =>
  async (s, env, req) => {
    const found = await s.repos.userData.deviceWithOwner(env.id, param(req, name));
    return found && toWireDevice(found.device, found.user?.external_id);
  };

/** The contacts and labels a user update may change. */
const userBefore: AuditSpec["before"] = async (s, env, req) => {
  const user = await s.repos.users.findByExternal(env.id, param(req, "id"));
  return (
    user && {
      email: user.email,
      phone: user.phone,
      metadata: JSON.parse(user.metadata) as unknown,
      groups: JSON.parse(user.groups) as unknown,
    }
  );
};

const challengeBefore: AuditSpec["before"] = (s, env, req) => s.challenges.get(env, param(req, "id")).catch(() => undefined);

/** `METHOD url` as Fastify names the route → what its entry records. */
export const AUDITED: Record<string, AuditSpec> = {
  // Who receives codes.
  "POST /v3/user/:id/update": { action: "user.update", targetType: "user", idParam: "id", before: userBefore, after: "body" },
  "DELETE /v3/user/:id": { action: "user.erase", targetType: "user", idParam: "id" },
  // Which devices count.
  "POST /v3/devices/:id/attach": { action: "device.attach", targetType: "device", idParam: "id", before: deviceBefore("id") },
  "POST /v3/devices/:id/detach": { action: "device.detach", targetType: "device", idParam: "id", before: deviceBefore("id") },
  "POST /v3/devices/:id/metadata": { action: "device.metadata", targetType: "device", idParam: "id", before: deviceBefore("id") },
  "POST /v2/proj/device/:device/metadata": {
    action: "device.metadata",
    targetType: "device",
    idParam: "device",
    before: deviceBefore("device"),
    after: "body",
  },
  // The legacy flow's completion attaches the identified device to the account named.
  "POST /v2/proj/identification/:id/complete": { action: "identification.complete", targetType: "identification", idParam: "id" },
  "POST /v3/challenges/:id/override": { action: "challenge.override", targetType: "challenge", idParam: "id", before: challengeBefore },
  // Through the challenge link these are the verified user's own steps (kept on the challenge, not here: see
  // audit.ts); with a secret key, the backend attaches or logs out a device.
  "POST /v3/challenges/:id/complete": { action: "challenge.complete", targetType: "challenge", idParam: "id", before: challengeBefore },
  "POST /v3/challenges/:id/kick": { action: "challenge.kick", targetType: "challenge", idParam: "id", after: "body" },
  // How the environment decides.
  "POST /v3/policies": { action: "policy.create", targetType: "policy" },
  "PATCH /v3/policies/:id": { action: "policy.update", targetType: "policy", idParam: "id", before: policyBefore },
  "DELETE /v3/policies/:id": { action: "policy.delete", targetType: "policy", idParam: "id", before: policyBefore, after: "none" },
  "POST /v3/lists/:id/add": { action: "list.add", targetType: "list", idParam: "id", after: "body" },
  "POST /v3/lists/:id/remove": { action: "list.remove", targetType: "list", idParam: "id", after: "body" },
  // Where events go.
  "POST /v3/webhook-endpoints": { action: "webhook_endpoint.create", targetType: "webhook_endpoint" },
  "DELETE /v3/webhook-endpoints/:id": {
    action: "webhook_endpoint.delete",
    targetType: "webhook_endpoint",
    idParam: "id",
    before: async (s, env, req) => (await s.webhookEndpoints.list(env)).find((e) => e.id === param(req, "id")),
    after: "none",
  },
  "POST /v3/webhook-endpoints/:id/deliveries/:delivery/retry": {
    action: "webhook_delivery.retry",
    targetType: "webhook_delivery",
    idParam: "delivery",
  },
  "POST /v3/webhook-endpoints/:id/test": { action: "webhook_endpoint.test", targetType: "webhook_endpoint", idParam: "id" },
  // Settings and keys (console sessions only: console/permissions.ts).
  "PATCH /v3/settings": { action: "settings.update", targetType: "environment", before: (s, env) => readSettings(s, env.id) },
  "POST /v3/keys": { action: "key.create", targetType: "key" },
  "POST /v3/keys/:id/revoke": { action: "key.revoke", targetType: "key", idParam: "id" },
};

/** Write routes that are not audited, each with the reason (where the change is recorded instead). */
export const NOT_AUDITED: Record<string, string> = {
  "POST /v3/evaluate/:action":
    "an evaluation, stored whole; one that changes an existing user's email or phone is written by the evaluation step auditContactChanges (audit.ts)",
  "POST /v3/evaluations/:id/consume": "the backend confirming one login it let in: the evaluation's consumed_at",
  "POST /v3/policies/backtest": "reads only: a backtest changes nothing",
  "POST /v3/challenges/:id/open": "the user's own step on the challenge link: the challenge's history",
  "POST /v3/challenges/:id/send": "the user's own step: a code sent to a stored contact, counted on the challenge",
  "POST /v3/challenges/:id/verify": "the user's own step: attempts are counted on the challenge",
  "POST /v3/challenges/:id/signup": "the user's own choice, remembered for the user.converted event",
  "POST /v3/delivery/text/:challenge/:send/:token": "the SMS provider's delivery receipt: the challenge's delivery_status",
  "POST /v3/client/evaluate/:action": "the browser's own call (public client id): stored as the evaluation",
  "POST /v3/client/devices/attach":
    "the browser's own call, allowed only with the backend's user_token for that user: the device's attached_at",
  "POST /v3/client/devices/detach": "the browser detaching its own device (its exact visitor token), as on logout",
  "POST /v3/client/fingerprint": "the browser's own call: a sighting of its device",
  "POST /v3/client/hash": "the browser's own call: a sighting of its device",
  "POST /v3/client/heartbeat": "the browser's own call: reads whether it was logged out",
  "POST /v3/client/identify": "the browser's own call: an identification the backend completes (audited then)",
};

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Whether a route is a write of the server API that must be in one of the tables. */
export const isApiWrite = (method: string, url: string): boolean => WRITES.has(method) && /^\/v[23]\//.test(url);

export function auditSpecFor(req: FastifyRequest): AuditSpec | undefined {
  return AUDITED[`${req.method} ${req.routeOptions.url ?? ""}`];
}
