// A "customer site" for the challenge flows (docs/challenges.md), on another origin than the Tessera server, under a strict
// CSP: pages that load the SDK by script tag and run a few lines of the customer's code, and the customer's own
// backend, which consumes the evaluation it gets back on the success URL with the backend client.
//   /login?user=&email=[&phone=]  evaluates a login; when challenged, follows `redirect` to the hosted app.
//   /app?user=&email=[&heartbeat=ms]  evaluates a login, which the backend consumes (/signed-in: the password was
//                        right, so the device is the user's and counts as theirs), then `#access` runs
//                        `evaluate.access` (which navigates to a challenge by itself); `on_logout` writes into
//                        `#session`, from an evaluation or from the SDK's heartbeat.
//   /paid?user=          `evaluate.access` on arrival (a device opening paid content first, before any login here).
//   /welcome?evaluation= the success URL: the backend consumes the evaluation and shows what it got.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError, Client } from "../../sdk/src/node/index.js";

export interface Consumed {
  evaluation: string;
  status: number;
  code?: string;
  challengeStatus?: string;
}

export interface ChallengeSite {
  url: string;
  /** What the backend got each time the success URL was requested, in order. */
  consumed: Consumed[];
  close(): Promise<void>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const html = (title: string, body: string, scripts: string[]) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
${body}
${scripts.map((s) => `<script src="${s}"></script>`).join("\n")}
</body>
</html>
`;

// The customer's browser code, read from the page URL: no inline script anywhere.
const loginJs = (clientId: string) => `const q = new URLSearchParams(location.search);
const out = document.getElementById("out");
const tessera = new Tessera({ clientId: ${JSON.stringify(clientId)} });
tessera.evaluate.login({ user: q.get("user"), email: q.get("email"), phone: q.get("phone") ?? undefined }).then(
  (r) => {
    out.textContent = r.redirect ? "challenged" : "allowed " + r.evaluation_id;
    if (r.redirect) location.assign(r.redirect);
  },
  (e) => { out.textContent = "error " + e.name + " " + e.message; },
);
`;

const appJs = (clientId: string) => `const q = new URLSearchParams(location.search);
const out = document.getElementById("out");
const session = document.getElementById("session");
const tessera = new Tessera({
  clientId: ${JSON.stringify(clientId)},
  on_logout: () => { session.textContent = "logged out by Tessera"; },
  heartbeat: q.has("heartbeat") ? { interval: Number(q.get("heartbeat")) } : false,
});
window.tessera = tessera;
tessera.evaluate.login({ user: q.get("user"), email: q.get("email") })
  .then((r) =>
    fetch("/signed-in?evaluation=" + encodeURIComponent(r.evaluation_id), { method: "POST" }).then((signedIn) => {
      out.textContent = signedIn.ok ? "ready " + r.evaluation_id : "refused " + signedIn.status;
    }),
  )
  .catch((e) => { out.textContent = "error " + e.name + " " + e.message; });
document.getElementById("access").addEventListener("click", () => {
  const result = document.getElementById("access-out");
  result.textContent = "checking";
  tessera.evaluate.access({ user: q.get("user") }).then(
    (r) => { result.textContent = (r.redirect ? "challenged " : "done ") + r.evaluation_id; },
    (e) => { result.textContent = "error " + e.name + " " + e.message; },
  );
});
`;

const paidJs = (clientId: string) => `const q = new URLSearchParams(location.search);
const out = document.getElementById("out");
new Tessera({ clientId: ${JSON.stringify(clientId)} }).evaluate.access({ user: q.get("user") }).then(
  (r) => { out.textContent = (r.redirect ? "challenged " : "done ") + r.evaluation_id; },
  (e) => { out.textContent = "error " + e.name + " " + e.message; },
);
`;

export async function startChallengeSite(server: { url: string; clientId: string; secret: string }): Promise<ChallengeSite> {
  const client = new Client(server.secret, { baseUrl: server.url });
  const consumed: Consumed[] = [];
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${server.url}`,
    `connect-src 'self' ${server.url}`,
    "style-src 'self'",
    "img-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  const send = (res: import("node:http").ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { "content-type": `${type}; charset=utf-8`, "content-security-policy": csp, "cache-control": "no-store" });
    res.end(body);
  };
  const sdk = `${server.url}/sdk/v3/tessera.js`;

  async function welcome(evaluation: string): Promise<Consumed> {
    // The customer's backend: consume what came back; only a completed challenge lets the user in.
    try {
      const ev = await client.consumeEvaluation(evaluation);
      return { evaluation, status: 200, challengeStatus: ev.challenge?.status };
    } catch (error) {
      if (error instanceof ApiError) return { evaluation, status: error.status, code: error.code };
      throw error;
    }
  }

  const httpServer: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    switch (url.pathname) {
      case "/login":
        return send(res, 200, "text/html", html("Log in", '<p>Login: <output id="out">pending</output></p>', [sdk, "/login.js"]));
      case "/login.js":
        return send(res, 200, "application/javascript", loginJs(server.clientId));
      case "/app":
        return send(
          res,
          200,
          "text/html",
          html(
            "Members area",
            '<p>Login: <output id="out">pending</output></p><p>Session: <output id="session">active</output></p>' +
              '<button id="access" type="button">Open the paid content</button><p>Access: <output id="access-out">none</output></p>',
            [sdk, "/app.js"],
          ),
        );
      case "/paid":
        return send(res, 200, "text/html", html("Paid content", '<p>Access: <output id="out">pending</output></p>', [sdk, "/paid.js"]));
      case "/paid.js":
        return send(res, 200, "application/javascript", paidJs(server.clientId));
      case "/app.js":
        return send(res, 200, "application/javascript", appJs(server.clientId));
      case "/signed-in": {
        // The customer's login handler: the password was right, so it consumes the evaluation it let in.
        if (req.method !== "POST") return send(res, 405, "text/plain", "POST only");
        client.consumeEvaluation(url.searchParams.get("evaluation") ?? "").then(
          () => send(res, 204, "text/plain", ""),
          (error: unknown) => send(res, error instanceof ApiError ? 403 : 500, "text/plain", String(error)),
        );
        return;
      }
      case "/welcome": {
        const evaluation = url.searchParams.get("evaluation") ?? "";
        welcome(evaluation).then(
          (r) => {
            consumed.push(r);
            const text = r.status === 200 ? `challenge ${r.challengeStatus}` : `refused ${r.status} ${r.code}`;
            send(
              res,
              200,
              "text/html",
              html(
                "Welcome back",
                `<p>Evaluation <code id="evaluation">${escapeHtml(evaluation)}</code>: <output id="status">${escapeHtml(text)}</output></p>`,
                [],
              ),
            );
          },
          (error: unknown) => send(res, 500, "text/plain", String(error)),
        );
        return;
      }
      default:
        return send(res, 404, "text/plain", "not found");
    }
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    // "localhost" rather than 127.0.0.1: another origin than the server's, allowed in development.
    url: `http://localhost:${port}/`,
    consumed,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
