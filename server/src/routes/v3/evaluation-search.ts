// GET /v3/evaluations (docs/console.md): evaluations of the environment, newest first, filtered, in keyset pages
// (`limit`, `cursor` → `{ data, next_cursor }`). For scripts with a secret key and for the console alike.
import { ErrorBody, EvaluationListQuery, EvaluationPage } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { envOf } from "../../auth.js";
import { badRequest } from "../../errors.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** A cursor is the last row's (created_at, id), opaque to callers. */
export function encodeCursor(at: number, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString("base64url");
}

export function decodeCursor(cursor: string): { at: number; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as [unknown, unknown];
    if (typeof at === "number" && Number.isFinite(at) && typeof id === "string") return { at, id };
  } catch {
    // reported below
  }
  throw badRequest("cursor is not a next_cursor this API answered", "cursor");
}

/**
 * A keyset page from rows read one past `limit` (the extra row only says that another page follows): the page, and
 * the cursor after its last row.
 */
export async function cursorPage<R extends { created_at: number; id: string }, T>(
  rows: R[],
  limit: number,
  toWire: (page: R[]) => T[] | Promise<T[]>,
): Promise<{ data: T[]; next_cursor: string | null }> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: await toWire(page), next_cursor: rows.length > limit && last ? encodeCursor(Number(last.created_at), last.id) : null };
}

const evaluationSearchRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const evaluations = services.evaluationsService;

  app.get(
    "/v3/evaluations",
    {
      schema: {
        tags: ["evaluations"],
        summary: "Search evaluations, newest first",
        description:
          "Filters (all optional, combined): `user` (your user id), `email`, `device`, `ip`, `verdict`, `action`, `from` and `to` (ISO 8601; from inclusive, to exclusive). Pages: `limit` (1–100, default 20) and `cursor`, the `next_cursor` of the previous page (null on the last page).",
        querystring: EvaluationListQuery,
        response: { 200: ok(EvaluationPage, "A page of evaluations, newest first, and the cursor of the next"), ...errors },
      },
    },
    async (req) => {
      const env = envOf(req);
      const q = req.query;
      const from = q.from ? Date.parse(q.from) : undefined;
      const to = q.to ? Date.parse(q.to) : undefined;
      if (from !== undefined && to !== undefined && from >= to) throw badRequest("from must be before to", "from");
      const rows = await evaluations.search({
        environmentId: env.id,
        user: q.user,
        email: q.email,
        deviceId: q.device,
        ip: q.ip,
        verdict: q.verdict,
        action: q.action,
        from,
        to,
        before: q.cursor ? decodeCursor(q.cursor) : undefined,
        limit: q.limit + 1,
      });
      return cursorPage(rows, q.limit, (page) => evaluations.toWirePage(page));
    },
  );
};

export default evaluationSearchRoutes;
