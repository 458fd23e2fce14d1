// The demo customer site at /demo/ (issue 3; development only): static pages that load the SDK by script tag
// from /sdk/v3/tessera.js, and the site's own small backend (/demo/api/*) that reads and consumes verdicts with
// the backend client (demo/backend.ts), as docs/sdk.md tells customers to do.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@tessera/sdk/node";
import type { FastifyInstance, FastifyReply } from "fastify";
import { afterChallenge, decide, type Outcome } from "../demo/backend.js";

export interface DemoOptions {
  /** The development environment's public client id (goes into the pages). */
  clientId: string;
  /** A secret key of the same environment (stays on the server, used by the backend client). */
  secret: string;
  /** Where the backend client reaches this server, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
}

const DIR = fileURLToPath(new URL("../demo/", import.meta.url));

// The demo obeys the same strict CSP we ask of customers: scripts and styles from files only.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const FILES: Record<string, { file: string; type: string }> = {
  "/demo/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/demo/index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "/demo/paid.html": { file: "paid.html", type: "text/html; charset=utf-8" },
  "/demo/app.js": { file: "app.js", type: "application/javascript; charset=utf-8" },
  "/demo/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

const ACTIONS = { login: "Logged in", signup: "Account created", access: "Access granted" } as const;

function reply(res: FastifyReply, outcome: Outcome, success: string) {
  switch (outcome.kind) {
    case "allow":
      return res.send({ message: `${success} as ${outcome.evaluation.user?.id ?? "?"} (verdict ${outcome.evaluation.verdict})` });
    case "challenge":
      return res.send({ challenge: outcome.redirect, message: "Verification needed" });
    default:
      return res.status(403).send({ message: `Refused: ${outcome.reason}` });
  }
}

function badRequest(res: FastifyReply, param: string) {
  return res.status(400).send({ error: { status: 400, code: "invalid_request", message: `${param} is required`, param } });
}

export default async function demo(app: FastifyInstance, opts: DemoOptions): Promise<void> {
  const client = new Client(opts.secret, { baseUrl: opts.baseUrl });
  const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  app.get("/demo", { schema: { hide: true } }, async (_req, res) => res.redirect("/demo/"));
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, { schema: { hide: true } }, async (_req, res) => {
      let body = await readFile(`${DIR}${file}`, "utf8");
      if (file.endsWith(".html")) body = body.replaceAll("{{CLIENT_ID}}", escapeHtml(opts.clientId));
      return res.header("content-type", type).header("cache-control", "no-cache").header("content-security-policy", CSP).send(body);
    });
  }

  for (const action of Object.keys(ACTIONS) as (keyof typeof ACTIONS)[]) {
    app.post<{ Body: { user?: unknown; evaluation_id?: unknown } }>(`/demo/api/${action}`, { schema: { hide: true } }, async (req, res) => {
      const { user, evaluation_id } = req.body ?? {};
      if (typeof user !== "string" || !user) return badRequest(res, "user");
      if (typeof evaluation_id !== "string" || !evaluation_id) return badRequest(res, "evaluation_id");
      // A real site checks the password here too; the demo accepts any.
      return reply(res, await decide(client, evaluation_id, { action, user }), ACTIONS[action]);
    });
  }

  app.post<{ Body: { evaluation_id?: unknown } }>("/demo/api/challenge-return", { schema: { hide: true } }, async (req, res) => {
    const { evaluation_id } = req.body ?? {};
    if (typeof evaluation_id !== "string" || !evaluation_id) return badRequest(res, "evaluation_id");
    return reply(res, await afterChallenge(client, evaluation_id), "Verified");
  });
}
