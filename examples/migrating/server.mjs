// A tiny site written against the hosted service's documented calls (docs/migrating.md): the browser script's
// `new Rupt({ clientId })` and `rupt.evaluate.login / .access`, the backend's `new RuptAPI(secret, { domain })`,
// `getEvaluation`, `consumeEvaluation`, `updateUser`, `getUserDevices({ user })` and `addToList({ list, value })`.
// It runs on Tessera with two things changed and nothing else:
//   - the switch: package.json maps `#rupt/api` to "@tessera/sdk/compat/api" (on the hosted service: "@ruptjs/api"),
//     and RUPT_SCRIPT is the Tessera server's /sdk/v3/rupt.js (on the hosted service: its CDN script);
//   - the keys: RUPT_CLIENT_ID, RUPT_SECRET, RUPT_DOMAIN (the Tessera server's address).
// Run: RUPT_DOMAIN=http://localhost:8080 RUPT_SCRIPT=http://localhost:8080/sdk/v3/rupt.js RUPT_CLIENT_ID=… RUPT_SECRET=… npm start
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { RuptAPI, RuptApiError } from "#rupt/api";

const PORT = Number(process.env.PORT ?? 3000);
const { RUPT_CLIENT_ID, RUPT_SECRET, RUPT_DOMAIN, RUPT_SCRIPT } = process.env;
if (!RUPT_CLIENT_ID || !RUPT_SECRET || !RUPT_DOMAIN || !RUPT_SCRIPT) {
  console.error("Set RUPT_CLIENT_ID, RUPT_SECRET, RUPT_DOMAIN and RUPT_SCRIPT (see the comment at the top of server.mjs).");
  process.exit(2);
}

const rupt = new RuptAPI(RUPT_SECRET, { domain: RUPT_DOMAIN });

// This site's accounts (a real site has a database and hashed passwords).
const ACCOUNTS = new Map([
  ["acct_42", { password: "correct horse", email: "alice@example.com", plan: "pro" }],
  ["acct_7", { password: "battery staple", email: "bob@example.com", plan: "free" }],
]);

function checkPassword(user, password) {
  const account = ACCOUNTS.get(user);
  if (!account || typeof password !== "string") return false;
  const [a, b] = [Buffer.from(account.password), Buffer.from(password)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Keeps the service's user records in sync with this site's: contacts, metadata, group. */
async function syncUsers() {
  for (const [user, { email, plan }] of ACCOUNTS)
    await rupt.updateUser({ user, email, metadata: { plan }, groups: [{ id: "org_acme", name: "Acme Inc." }] });
}

// ---- sessions: a random cookie naming server-side state ----
const sessions = new Map();
function sessionOf(req) {
  const sid = /(?:^|;\s*)sid=([\w-]{20,})/.exec(req.headers.cookie ?? "")?.[1];
  if (sid && sessions.has(sid)) return { sid, state: sessions.get(sid), fresh: false };
  const id = randomBytes(24).toString("base64url");
  const state = {};
  sessions.set(id, state);
  return { sid: id, state, fresh: true };
}

const reply = (status, body) => ({ status, body });

/** Consumes an evaluation once; null when it was used already (a replay). */
async function consumeOnce(id) {
  try {
    return await rupt.consumeEvaluation(id);
  } catch (error) {
    if (error instanceof RuptApiError && error.status === 409) return null;
    throw error;
  }
}

/** POST /api/login { user, password, evaluation_id }: the password, then the service's verdict on this login. */
async function login({ user, password, evaluation_id }, session) {
  if (!checkPassword(user, password)) return reply(401, { message: "Wrong user id or password" });
  let evaluation;
  try {
    evaluation = await rupt.getEvaluation(evaluation_id);
  } catch (error) {
    if (error instanceof RuptApiError && error.status < 500) return reply(403, { message: "Login refused" });
    throw error;
  }
  // The integrity check: this action, this user, not used before.
  if (evaluation.action !== "login" || evaluation.user?.id !== user || evaluation.consumed) return reply(403, { message: "Login refused" });
  if (evaluation.verdict === "allow") {
    // Consuming the login is what makes this browser one of the user's devices (docs/migrating.md "Account sharing").
    if (!(await consumeOnce(evaluation.id))) return reply(403, { message: "Login refused" });
    session.user = user;
    return reply(200, { ok: true });
  }
  if (evaluation.verdict === "challenge") {
    session.pending = { user, evaluation: evaluation.id };
    return reply(200, { challenge: evaluation.redirect });
  }
  return reply(403, { message: "Login refused" });
}

/** POST /api/login/return { evaluation_id }: back from the hosted challenge (the success URL), finish that login. */
async function loginReturn({ evaluation_id }, session) {
  const pending = session.pending;
  if (!pending || pending.evaluation !== evaluation_id) return reply(403, { message: "No login to finish here" });
  session.pending = undefined;
  const evaluation = await consumeOnce(evaluation_id);
  if (!evaluation || evaluation.user?.id !== pending.user || evaluation.challenge?.status !== "completed")
    return reply(403, { message: "Verification failed" });
  session.user = pending.user;
  return reply(200, { ok: true });
}

/** GET-like POST /api/devices: the signed-in user's devices, as the service lists them. */
async function devices(_body, session) {
  if (!session.user) return reply(401, { message: "Not signed in" });
  const list = await rupt.getUserDevices({ user: session.user });
  return reply(200, { devices: list.map((d) => ({ id: d.id, status: d.status, type: d.type, browser: d.info?.browser })) });
}

/** POST /api/report { user }: a moderator reports an account, which goes on the list a policy blocks. */
async function report({ user }, session) {
  if (!session.user) return reply(401, { message: "Not signed in" });
  if (typeof user !== "string" || !ACCOUNTS.has(user)) return reply(400, { message: "No such account" });
  const result = await rupt.addToList({ list: "reported_users", value: user, comment: `reported by ${session.user}` });
  return reply(200, { ok: true, total: result.total });
}

const API = { "/api/login": login, "/api/login/return": loginReturn, "/api/devices": devices, "/api/report": report };

const ORIGIN = new URL(RUPT_SCRIPT).origin;
const CSP = `default-src 'self'; script-src 'self' ${ORIGIN}; connect-src 'self' ${ORIGIN}; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
const PUBLIC = new URL("./public/", import.meta.url);
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };
const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function page(name, vars) {
  let html = await readFile(new URL(name, PUBLIC), "utf8");
  for (const [k, v] of Object.entries(vars)) html = html.replaceAll(`{{${k}}}`, escapeHtml(v));
  return html;
}

async function readJson(req) {
  let text = "";
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 10_000) throw Object.assign(new Error("too large"), { status: 413 });
  }
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    throw Object.assign(new Error("bad JSON"), { status: 400 });
  }
}

const server = createServer(async (req, res) => {
  const session = sessionOf(req);
  const headers = { "content-security-policy": CSP, "cache-control": "no-store" };
  if (session.fresh) headers["set-cookie"] = `sid=${session.sid}; HttpOnly; SameSite=Lax; Path=/`;
  const send = (status, type, body) => {
    res.writeHead(status, { ...headers, "content-type": type });
    res.end(body);
  };
  const url = new URL(req.url ?? "/", "http://localhost");
  try {
    const handler = API[url.pathname];
    if (handler && req.method === "POST") {
      const { status, body } = await handler(await readJson(req), session.state);
      return send(status, "application/json", JSON.stringify(body));
    }
    if (url.pathname === "/api/logout" && req.method === "POST") {
      sessions.delete(session.sid);
      return send(200, "application/json", '{"ok":true}');
    }
    if (req.method !== "GET") return send(405, "text/plain", "Method not allowed");
    if (url.pathname === "/favicon.ico") return send(204, "image/x-icon", "");
    // "/return" is the success URL the login page gives: where the hosted challenge sends the browser back.
    if (url.pathname === "/" || url.pathname === "/return")
      return send(200, TYPES[".html"], await page("index.html", { RUPT_SCRIPT, RUPT_CLIENT_ID }));
    if (url.pathname === "/account") {
      const { user } = session.state;
      if (!user) {
        headers.location = "/";
        return send(302, "text/plain", "Not signed in");
      }
      return send(200, TYPES[".html"], await page("account.html", { USER: user, RUPT_SCRIPT, RUPT_CLIENT_ID }));
    }
    const file = /^\/(login\.js|account\.js|style\.css)$/.exec(url.pathname)?.[1];
    if (file) return send(200, TYPES[file.slice(file.lastIndexOf("."))], await readFile(new URL(file, PUBLIC)));
    send(404, "text/plain", "Not found");
  } catch (error) {
    // The service down or slow: refuse rather than let a login through unchecked.
    const status = error.status ?? 503;
    if (status >= 500) console.error("request failed:", error.message);
    send(
      status,
      "application/json",
      JSON.stringify({ message: status >= 500 ? "Sign-in is unavailable, try again in a moment" : error.message }),
    );
  }
});

await syncUsers().catch((error) => console.error(`Could not sync the accounts (${error.message}); challenge codes need their contacts.`));
server.listen(PORT, "127.0.0.1", () => console.log(`Migrating example on http://localhost:${PORT} (the service at ${RUPT_DOMAIN})`));
