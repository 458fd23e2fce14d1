// GET /v3/audit-log (SPEC.md 14): who changed what and when, with the object before and after, newest first.
import { AuditLogPage, AuditLogQuery, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { badRequest } from "../../errors.js";
import type { Services } from "../../services.js";
import type { AuditRow } from "../../store/audit-log.js";
import { iso } from "../../time.js";
import { ok } from "../describe.js";
import { cursorPage, decodeCursor } from "./evaluation-search.js";

function toWire(r: AuditRow) {
  return {
    id: r.id,
    actor: { type: r.actor_type as "operator" | "key" | "cli", ...(r.actor_id ? { id: r.actor_id } : {}), label: r.actor_label },
    action: r.action,
    ...(r.environment_id ? { environment: r.environment_id } : {}),
    ...(r.target_type ? { target: { type: r.target_type, ...(r.target_id ? { id: r.target_id } : {}) } } : {}),
    ...(r.before ? { before: JSON.parse(r.before) as unknown } : {}),
    ...(r.after ? { after: JSON.parse(r.after) as unknown } : {}),
    ...(r.status != null ? { status: Number(r.status) } : {}),
    ...(r.ip ? { ip: r.ip } : {}),
    createdAt: iso(Number(r.created_at)),
  };
}

const auditLogRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v3/audit-log",
    {
      schema: {
        tags: ["audit"],
        summary: "The audit log of the environment and its project, newest first",
        description:
          "Filters: `actor` (an operator's email or a key's prefix as listed), `action`, `target` (an id), `from`, `to`; pages by `cursor`.",
        querystring: AuditLogQuery,
        response: {
          200: ok(AuditLogPage, "A page of audit entries, newest first, and the cursor of the next"),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (req) => {
      const env = envOf(req);
      const q = req.query;
      const from = q.from ? Date.parse(q.from) : undefined;
      const to = q.to ? Date.parse(q.to) : undefined;
      if (from !== undefined && to !== undefined && from >= to) throw badRequest("from must be before to", "from");
      const rows = await services.repos.auditLog.list({
        projectId: env.projectId,
        environmentId: env.id,
        actor: q.actor,
        action: q.action,
        target: q.target,
        from,
        to,
        before: q.cursor ? decodeCursor(q.cursor) : undefined,
        limit: q.limit + 1,
      });
      return cursorPage(rows, q.limit, (page) => page.map(toWire));
    },
  );
};

export default auditLogRoutes;
