// GET /v3/audit-log (docs/console.md): who changed what and when, with the object before and after, newest first.
import { AuditLogPage, AuditLogQuery, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { auditEntries, toWireAuditEntry } from "../../console/audit-log.js";
import { badRequest } from "../../errors.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";
import { cursorPage, decodeCursor } from "./evaluation-search.js";

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
      const rows = await auditEntries(services, env, {
        actor: q.actor,
        action: q.action,
        target: q.target,
        from,
        to,
        before: q.cursor ? decodeCursor(q.cursor) : undefined,
        limit: q.limit + 1,
      });
      return cursorPage(rows, q.limit, (page) => page.map(toWireAuditEntry));
    },
  );
};

export default auditLogRoutes;
