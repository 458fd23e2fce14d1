// The demo customer site at /demo/ (development only): static pages that load the SDK by script tag from
// /sdk/v3/tessera.js, the site's own small backend (/demo/api/*) that reads and consumes verdicts with the backend
// client (demo/backend.ts) as the README's "Login integration" tells customers to do, a test-mode switch for its login
// form (README "Test mode"), and /demo/outbox, the codes sent by this development server.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { TEST_LISTS, type TestList, testVerdict } from "@tessera/sdk/contract";
import { Client } from "@tessera/sdk/node";
import type { FastifyInstance, FastifyReply } from "fastify";
import { afterChallenge, decide, type Outcome } from "../demo/backend.js";
import type { DevOutboxRow } from "../store/challenges.js";

/** A dev-outbox message as the outbox page lists it, with its project's name. */
type OutboxEntry = DevOutboxRow & { project: string };

export interface DemoOptions {
  /** The development environment's public client id (goes into the pages). */
  clientId: string;
  /** A secret key of the same environment (stays on the server, used by the backend client). */
  secret: string;
  /** Where the backend client reaches this server, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The newest dev-outbox messages of the development environments (set by the app from the store). */
  outbox?: () => Promise<OutboxEntry[]>;
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
    case "restrict":
      // A real site lets the user in with reduced rights (no payouts, no settings changes, …).
      return res.send({
        message: `${success} as ${outcome.evaluation.user?.id ?? "?"}, with restricted access (verdict ${outcome.evaluation.verdict})`,
        restricted: true,
      });
    case "challenge":
      return res.send({ challenge: outcome.redirect, message: "Verification needed" });
    default:
      return res.status(403).send({ message: `Refused: ${outcome.reason}` });
  }
}

function badRequest(res: FastifyReply, param: string) {
  return res.status(400).send({ error: { status: 400, code: "invalid_request", message: `${param} is required`, param } });
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Seconds between reloads of the outbox page: a code sent a moment ago shows without a click. */
const OUTBOX_REFRESH_S = 3;

function outboxPage(messages: OutboxEntry[]): string {
  const rows = messages
    .map(
      (m) => `<tr>
  <td><time datetime="${new Date(m.created_at).toISOString()}">${escapeHtml(new Date(m.created_at).toISOString().slice(11, 19))}</time></td>
  <td>${escapeHtml(m.project)}</td>
  <td>${escapeHtml(m.recipient)}<br><span class="muted">${m.channel === "text" ? "text message" : "email"}</span></td>
  <td class="code">${escapeHtml(m.code ?? "")}</td>
  <td><details><summary>${escapeHtml(m.subject)}</summary><pre>${escapeHtml(m.body)}</pre></details></td>
</tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="refresh" content="${OUTBOX_REFRESH_S}">
  <title>Dev outbox — Tessera</title>
  <link rel="stylesheet" href="/demo/style.css">
</head>
<body>
  <header><strong>Dev outbox</strong> <span class="muted">codes this development server sent instead of emails and texts</span>
    <nav><a href="/demo/">Demo site</a> · <a href="/docs">API reference</a></nav>
  </header>
  <main class="wide">
    <p class="muted">Newest first, every development environment; refreshed every ${OUTBOX_REFRESH_S} s. With a secret key:
      <code>GET /v3/dev/outbox</code>. Set <code>SMTP_URL</code> to send real emails.</p>
    ${messages.length ? `<table id="outbox"><thead><tr><th>Sent (UTC)</th><th>Project</th><th>To</th><th>Code</th><th>Message</th></tr></thead><tbody>\n${rows}\n</tbody></table>` : '<p id="empty">No code sent yet. Trigger a challenge (the demo\'s test mode does it) and it shows here.</p>'}
  </main>
</body>
</html>`;
}

export default async function demo(app: FastifyInstance, opts: DemoOptions): Promise<void> {
  const client = new Client(opts.secret, { baseUrl: opts.baseUrl });

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

  app.get("/demo/outbox", { schema: { hide: true } }, async (_req, res) =>
    res
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("content-security-policy", CSP)
      .send(outboxPage((await opts.outbox?.()) ?? [])),
  );

  // Test mode (README): the site's backend puts the user on one test list (or none) with its secret key.
  app.post<{ Body: { user?: unknown; verdict?: unknown } }>("/demo/api/test-mode", { schema: { hide: true } }, async (req, res) => {
    const { user, verdict } = req.body ?? {};
    if (typeof user !== "string" || !user) return badRequest(res, "user");
    const lists = Object.entries(TEST_LISTS);
    const chosen = lists.find(([, v]) => v === verdict)?.[0];
    if (verdict !== "none" && !chosen) return badRequest(res, "verdict");
    for (const [list] of lists) if (list !== chosen) await client.removeFromList(list, { values: [user] });
    if (chosen) await client.addToList(chosen, { values: [user], comment: "demo site test mode" });
    // What the list does, as the server applies it (the contract's testVerdict): the pages the user opens are not challenged.
    const onPages = chosen && testVerdict(chosen as TestList, "access");
    return res.send({
      message: !chosen
        ? `Test mode off for ${user}: the policies decide again`
        : onPages === verdict
          ? `Test mode: every evaluation of ${user} is now ${verdict} (${chosen} list)`
          : `Test mode: the pages ${user} opens are ${onPages === "allow" ? "let in" : onPages}; every login, sign-up and other action of ${user} is now ${verdict} (${chosen} list)`,
    });
  });

  app.post<{ Body: { evaluation_id?: unknown } }>("/demo/api/challenge-return", { schema: { hide: true } }, async (req, res) => {
    const { evaluation_id } = req.body ?? {};
    if (typeof evaluation_id !== "string" || !evaluation_id) return badRequest(res, "evaluation_id");
    return reply(res, await afterChallenge(client, evaluation_id), "Verified");
  });
}
