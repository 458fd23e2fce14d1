// The audit log (docs/console.md "The audit log"): every change made through a route of the audit table
// (console/audit-table.ts), by a console operator or a secret key, is recorded with who, what, when, and the target
// before and after. The entry is written before the change runs and given its outcome before the answer leaves, so an
// acknowledged change always has its entry and a change cut short by a crash still shows (without an outcome). One
// hook for every route, not a line in each handler; a write route the table does not mention stops the build. The
// CLI's changes are written through recordCliChange, and a server evaluation that changes a user's stored contacts
// through the evaluation step auditContactChanges (an evaluation is not an audited route: most change nothing).
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { userInfo } from "node:os";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { newId } from "../ids.js";
import type { EvaluationStep } from "../pipeline/ports.js";
import type { Store } from "../store/db.js";
import type { Repos } from "../store/repos.js";
import { AUDITED, type AuditReaders, auditSpecFor, isApiWrite, NOT_AUDITED } from "./audit-table.js";

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

interface Actor {
  actor_type: "operator" | "key" | "cli";
  actor_id: string | null;
  actor_label: string;
}

/**
 * Who makes the change: the console operator, or the secret key (its id and prefix). Neither — a step of the hosted
 * challenge app with the challenge link, which the verified user takes on its own account — is not an administrator's
 * change: the challenge records it.
 */
async function actorOf(repos: Repos, req: FastifyRequest): Promise<Actor | undefined> {
  if (req.operator) return { actor_type: "operator", actor_id: req.operator.id, actor_label: req.operator.email };
  const secret = BEARER.exec(req.headers.authorization ?? "")?.[1];
  if (!secret) return undefined;
  const keyId = await repos.auditLog.keyIdByHash(createHash("sha256").update(secret).digest("hex"));
  return { actor_type: "key", actor_id: keyId ?? null, actor_label: `${secret.slice(0, 12)}…` };
}

/** A write route of the server API must say whether the audit log records it (console/audit-table.ts). */
export function checkAuditDecision(method: string, url: string): void {
  const key = `${method} ${url}`;
  if (isApiWrite(method, url) && !AUDITED[key] && !NOT_AUDITED[key])
    throw new Error(
      `${key} writes but is in neither AUDITED nor NOT_AUDITED (server/src/console/audit-table.ts): decide whether it is audited`,
    );
}

/** The request a change is made in, for a change noticed by a service rather than by its route (an evaluation's). */
const inRequest = new AsyncLocalStorage<FastifyRequest>();

export function registerAudit(app: FastifyInstance, services: AuditReaders & { store: Store }): void {
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) checkAuditDecision(method, route.url);
  });

  // Entered for server API calls only (a key or a session), after authentication: what the handler awaits sees it.
  app.addHook("preHandler", (req, _reply, done) => {
    if (req.environment && (req.operator || req.headers.authorization)) inRequest.run(req, done);
    else done();
  });

  app.addHook("preHandler", async (req) => {
    const audit = auditSpecFor(req);
    const env = req.environment;
    if (!audit || !env) return;
    const actor = await actorOf(services.repos, req);
    if (!actor) return;
    const before = audit.before ? await audit.before(services, env, req) : undefined;
    const id = newId("aud");
    await services.repos.auditLog.insert({
      id,
      project_id: env.projectId,
      environment_id: env.id,
      ...actor,
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

/** The CLI's actor: the command line, with the system user that ran it when known. */
function cliActor(): Actor {
  let user = "";
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): the label says cli alone.
  }
  return { actor_type: "cli", actor_id: null, actor_label: user ? `cli:${user}` : "cli" };
}

/**
 * A change made by the CLI (keys, operators), written once done: status 200, as an HTTP change that succeeded. An
 * entry of a project is shown in each of its environments' logs; an installation-wide one (project null) is kept in
 * the table, for whoever reads the database.
 */
export async function recordCliChange(
  repos: Repos,
  change: {
    projectId: string | null;
    environmentId?: string | null;
    action: string;
    targetType: string;
    targetId: string | null;
    before?: unknown;
    after?: unknown;
  },
): Promise<void> {
  await repos.auditLog.insert({
    id: newId("aud"),
    project_id: change.projectId,
    environment_id: change.environmentId ?? null,
    ...cliActor(),
    action: change.action,
    target_type: change.targetType,
    target_id: change.targetId,
    before: json(change.before),
    after: json(change.after),
    status: 200,
    ip: null,
    created_at: Date.now(),
  });
}

/**
 * An evaluation step (run in the evaluation's transaction): a server evaluation whose email or phone differs from an
 * existing user's stored ones changes where its codes go (store/users.ts, upsert: the backend's contacts are the
 * user's), so it is written to the audit log like POST /v3/user/:id/update, in the same transaction as the change.
 * Compared with the row the identity step read before the change: no extra read unless a contact changed. A user this
 * evaluation creates is not a change (its first contacts are on the evaluation); a browser's claim never changes them.
 */
export function auditContactChanges(repos: Repos): EvaluationStep {
  return async (result, input, identity) => {
    const before = identity.user;
    if (input.source !== "server" || !before) return;
    const email = input.email !== undefined && input.email !== before.email;
    const phone = input.phone !== undefined && input.phone !== before.phone;
    if (!email && !phone) return;
    const req = inRequest.getStore();
    const actor = req && (await actorOf(repos, req));
    await repos.auditLog.insert({
      id: newId("aud"),
      project_id: input.env.projectId,
      environment_id: input.env.id,
      ...(actor ?? { actor_type: "key", actor_id: null, actor_label: "unknown" }),
      action: "user.update",
      target_type: "user",
      target_id: input.user ?? before.external_id,
      before: json({ email: before.email, phone: before.phone }),
      after: json({
        ...(email ? { email: input.email } : {}),
        ...(phone ? { phone: input.phone } : {}),
        evaluation: result.id,
      }),
      // Committed with the evaluation, which answers 200 once committed.
      status: 200,
      ip: req?.ip ?? null,
      created_at: Date.now(),
    });
  };
}
