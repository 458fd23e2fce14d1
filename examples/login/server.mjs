// A tiny customer site protected by Tessera (the README's "Login integration", end to end): its login page evaluates
// the login with the browser SDK, this backend checks the password, reads the verdict with the backend client and
// lets the user in, in with restricted rights, through the hosted challenge, or not at all. Node's http module only;
// the @tessera/sdk package is its one dependency. Run: TESSERA_CLIENT_ID=pk_test_… TESSERA_SECRET=sk_test_… npm start
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { ApiError, Client } from "@tessera/sdk/node";

const PORT = Number(process.env.PORT ?? 3000);
const TESSERA_URL = (process.env.TESSERA_URL ?? "http://localhost:8080").replace(/\/$/, "");
const CLIENT_ID = process.env.TESSERA_CLIENT_ID; // public: goes into the page
const SECRET = process.env.TESSERA_SECRET; // stays here
if (!CLIENT_ID || !SECRET) {
  console.error("Set TESSERA_CLIENT_ID and TESSERA_SECRET (a development environment's, from `npx tessera projects create`).");
  process.exit(2);
}

const tessera = new Client(SECRET, { baseUrl: TESSERA_URL });

// This site's accounts. A real site has a database and hashed passwords; the contacts are its own, and Tessera sends
// challenge codes only to the contacts the backend gave it (see `ownContacts`).
const ACCOUNTS = new Map([
  ["acct_42", { password: "correct horse", email: "alice@example.com" }],
  ["acct_7", { password: "battery staple", email: "bob@example.com" }],
]);

function checkPassword(user, password) {
  const account = ACCOUNTS.get(user);
  if (!account || typeof password !== "string") return false;
  const [a, b] = [Buffer.from(account.password), Buffer.from(password)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Tessera learns each account's email from this backend, never from a browser (README "Identity verification"). */
async function ownContacts() {
  for (const [user, { email }] of ACCOUNTS) await tessera.updateUser(user, { email });
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

function signIn(session, user, { restricted }) {
  session.user = user;
  session.restricted = restricted;
  return reply(200, { ok: true, user, restricted });
}

/** Consumes an evaluation; null when it was used already (a replay, or a second tab). */
async function consumeOnce(id) {
  try {
    return await tessera.consumeEvaluation(id);
  } catch (error) {
    if (error instanceof ApiError && error.code === "already_consumed") return null;
    throw error;
  }
}

// #region login
/** POST /api/login { user, password, evaluation_id }: the password first, then Tessera's verdict on this login. */
async function login({ user, password, evaluation_id }, session) {
  if (!checkPassword(user, password)) return reply(401, { message: "Wrong user id or password" });
  let evaluation;
  try {
    evaluation = await tessera.getEvaluation(evaluation_id);
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return reply(403, { message: "Login refused" }); // unknown id
    throw error; // Tessera unreachable: the request handler answers 503, the login fails closed
  }
  // Integrity: an evaluation for another action or user, or an already used one, proves nothing.
  if (evaluation.action !== "login" || evaluation.user?.id !== user || evaluation.consumed) return reply(403, { message: "Login refused" });
  switch (evaluation.verdict) {
    case "allow":
    case "restrict": // in, with reduced rights (no payouts, no changes to security settings, …)
      if (!(await consumeOnce(evaluation.id))) return reply(403, { message: "Login refused" }); // one evaluation, one login
      return signIn(session, user, { restricted: evaluation.verdict === "restrict" });
    case "challenge":
    case "challenge_and_restrict":
      // Not in yet: remember who is logging in with which evaluation, and send the browser to the hosted challenge.
      session.pending = { user, evaluation: evaluation.id, restricted: evaluation.verdict === "challenge_and_restrict" };
      return reply(200, { challenge: evaluation.redirect });
    default: // deny
      return reply(403, { message: "Login refused" });
  }
}
// #endregion login

// #region challenge-return
/** POST /api/login/challenge-return { evaluation_id }: back from the hosted challenge, finish the login it held. */
async function challengeReturn({ evaluation_id }, session) {
  const pending = session.pending;
  // Only the login this browser started: an evaluation id from anywhere else proves nothing.
  if (!pending || pending.evaluation !== evaluation_id) return reply(403, { message: "No login to finish here" });
  session.pending = undefined;
  const evaluation = await consumeOnce(evaluation_id);
  if (!evaluation) return reply(403, { message: "This verification was already used" });
  const passed = evaluation.action === "login" && evaluation.user?.id === pending.user && evaluation.challenge?.status === "completed";
  if (!passed) return reply(403, { message: "Verification failed" });
  return signIn(session, pending.user, { restricted: pending.restricted });
}
// #endregion challenge-return

const API = { "/api/login": login, "/api/login/challenge-return": challengeReturn };

// The page's CSP: scripts from this site and the Tessera server only, calls to both, nothing inline.
const CSP = `default-src 'self'; script-src 'self' ${TESSERA_URL}; connect-src 'self' ${TESSERA_URL}; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
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
    if (url.pathname === "/") return send(200, TYPES[".html"], await page("index.html", { TESSERA_URL, CLIENT_ID }));
    if (url.pathname === "/account") {
      const { user, restricted } = session.state;
      if (!user) {
        headers.location = "/";
        return send(302, "text/plain", "Not signed in");
      }
      const rights = restricted ? "restricted access: payouts and security settings are locked" : "full access";
      return send(200, TYPES[".html"], await page("account.html", { USER: user, RIGHTS: rights, TESSERA_URL, CLIENT_ID }));
    }
    const file = /^\/(login\.js|account\.js|style\.css)$/.exec(url.pathname)?.[1];
    if (file) return send(200, TYPES[file.slice(file.lastIndexOf("."))], await readFile(new URL(file, PUBLIC)));
    send(404, "text/plain", "Not found");
  } catch (error) {
    // Tessera down or slow (NetworkError, TimeoutError): refuse rather than let a login through unchecked.
    const status = error.status ?? 503;
    if (status >= 500) console.error("login failed:", error.message);
    send(
      status,
      "application/json",
      JSON.stringify({ message: status >= 500 ? "Sign-in is unavailable, try again in a moment" : error.message }),
    );
  }
});

await ownContacts().catch((error) => console.error(`Could not give Tessera the accounts' contacts (${error.message}); codes need them.`));
server.listen(PORT, "127.0.0.1", () => console.log(`Example site on http://localhost:${PORT} (Tessera at ${TESSERA_URL})`));
