// The audit log (SPEC.md 14): every change made through a route of the permission table, by a console operator or
// a secret key, is recorded with who, what, when, and the target before and after. The entry is written before the
// change runs and given its outcome before the answer leaves, so an acknowledged change always has its entry and a
// change cut short by a crash still shows (without an outcome).
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { newId } from "../ids.js";
import type { Services } from "../services.js";
import { permissionFor } from "./permissions.js";

declare module "fastify" {
  interface FastifyRequest {
    auditEntry?: { id: string; after: "response" | "body" | "none"; named: boolean };
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** Secrets never reach the log, whatever object carries them. */
const SECRET_FIELDS = new Set(["secret", "password", "token"]);

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? "[redacted]" : redact(v)]));
  return value;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(redact(v)));

async function actorOf(services: Services, req: FastifyRequest) {
  if (req.operator) return { actor_type: "operator", actor_id: req.operator.id, actor_label: req.operator.email };
  const secret = BEARER.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const keyId = await services.repos.auditLog.keyIdByHash(createHash("sha256").update(secret).digest("hex"));
  return { actor_type: "key", actor_id: keyId ?? null, actor_label: `${secret.slice(0, 12)}…` };
}

export function registerAudit(app: FastifyInstance, services: Services): void {
  app.addHook("preHandler", async (req) => {
    const audit = permissionFor(req)?.audit;
    const env = req.environment;
    if (!audit || !env) return;
    const before = audit.before ? await audit.before(services, env, req) : undefined;
    const id = newId("aud");
    await services.repos.auditLog.insert({
      id,
      project_id: env.projectId,
      environment_id: env.id,
      ...(await actorOf(services, req)),
      action: audit.action,
      target_type: audit.targetType,
      target_id: audit.idParam ? ((req.params as Record<string, string>)[audit.idParam] ?? null) : null,
      before: json(before),
      after: null,
      status: null,
      ip: req.ip,
      created_at: Date.now(),
    });
    req.auditEntry = { id, after: audit.after ?? "response", named: !!audit.idParam };
  });

  app.addHook("onSend", async (req, reply, payload) => {
    const entry = req.auditEntry;
    if (!entry) return payload;
    req.auditEntry = undefined;
    let after: unknown;
    let created: string | undefined;
    if (reply.statusCode < 400 && typeof payload === "string" && payload.startsWith("{")) {
      const answer = JSON.parse(payload) as { id?: unknown };
      if (entry.after === "response") after = answer;
      // A creation's target is the object it created.
      if (!entry.named && typeof answer.id === "string") created = answer.id;
    }
    if (reply.statusCode < 400 && entry.after === "body") after = req.body;
    await services.repos.auditLog.finish(entry.id, reply.statusCode, json(after), created);
    // The answer waits for the entry to be committed, like the change itself (app.ts, onSend).
    await services.store.durable();
    return payload;
  });
}
