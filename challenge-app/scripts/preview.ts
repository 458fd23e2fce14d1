// Visual and accessibility preview of the challenge app, for the developer's eyes only (the real e2e tests run
// against the real server): serves dist plus a fake challenge API on loopback, walks every screen in headless
// Chromium in en and ar at 320 px and desktop widths, saves screenshots to challenge-app/.screens/, and runs axe.
// Run: npm run build -w challenge-app && npx tsx challenge-app/scripts/preview.ts
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ChallengeView, type Device } from "@tessera/sdk/contract";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../e2e/helpers/browser.js";

const here = fileURLToPath(new URL("..", import.meta.url));
const dist = join(here, "dist");
const out = join(here, ".screens");
const RIGHT_CODE = "123456";
const LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#0f766e"/><path d="M9 22V10h4l3 7 3-7h4v12h-3v-7l-3 7h-2l-3-7v7z" fill="#fff"/></svg>')}`;

// ---- fake API: one state per challenge id; the id's prefix picks the scenario ----
type Fake = { view: ChallengeView; devices: Device[] };
const fakes = new Map<string, Fake>();
let origin = "";
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

function device(id: string, type: Device["type"], browser: string, os: string, seenAgoMs: number, current = false): Device {
  return {
    id,
    user: "acct_42",
    status: "attached",
    type,
    info: { browser, os },
    metadata: {},
    last_seen_at: iso(-seenAgoMs),
    actively_connected: seenAgoMs < 600_000,
    current,
    createdAt: iso(-86_400_000 * 30),
    updatedAt: iso(-seenAgoMs),
  };
}

function fake(id: string): Fake {
  const existing = fakes.get(id);
  if (existing) return existing;
  const scenario = id.split("-")[0];
  const sharing = scenario === "share";
  const view: ChallengeView = {
    challenge: {
      id,
      status: scenario === "failed" ? "failed" : "created",
      type: sharing ? "account_sharing" : "account_takeover",
      challenge_mode: "service_managed",
      delivery_status: undefined,
      channels: [],
      reasons: sharing ? ["device_count"] : ["is_new_ip", "impossible_travel", "ip_is_vpn"],
      evaluation: "eval_7Hq2",
      origin_url: `${origin}/app`,
      email_verified: false,
      phone_verified: false,
      verify_attempts: scenario === "failed" ? 5 : 0,
      createdAt: iso(),
      updatedAt: iso(),
    },
    available_channels: sharing
      ? [{ channel: "email", destination: "j•••@example.com" }]
      : [
          { channel: "email", destination: "j•••@example.com" },
          { channel: "text", destination: "+33 6•• •• •• 78" },
        ],
    required_channels: "any",
    allow_skip: sharing,
    device_limit: sharing ? 2 : undefined,
    attempts_left: scenario === "failed" ? 0 : 5,
    verified_channels: [],
    failure_reason: scenario === "failed" ? "too_many_attempts" : undefined,
    expires_at: iso(600_000),
    success_url: `${origin}/landing`,
    signup_url: sharing ? `${origin}/signup` : undefined,
    project: { name: "Acme Notes", logo_url: LOGO, color: sharing ? "#f5c518" : "#0f766e" },
  };
  const f: Fake = {
    view,
    devices: [
      device("dev_1", "computer", "Firefox", "Ubuntu", 120_000, true),
      device("dev_2", "mobile", "Mobile Safari", "iOS 18", 3_600_000 * 5),
      device("dev_3", "tablet", "Chrome", "Android 15", 86_400_000 * 3),
      device("dev_4", "computer", "Edge", "Windows 11", 86_400_000 * 12),
    ],
  };
  fakes.set(id, f);
  return f;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
const error = (res: ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { error: { status, code, message } });

async function api(req: IncomingMessage, res: ServerResponse, id: string, op: string) {
  const scenario = id.split("-")[0];
  if (!req.headers["x-challenge-token"] || scenario === "expired") return error(res, 401, "unauthorized", "Challenge token expired");
  if (scenario === "gone") return error(res, 404, "not_found", "Challenge not found");
  if (scenario === "broken") return error(res, 500, "internal", "Database unavailable");
  let body: Record<string, unknown> = {};
  if (req.method === "POST") {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    body = raw ? JSON.parse(raw) : {};
  }
  const f = fake(id);
  const c = f.view.challenge;
  const answer = () => send(res, 200, ChallengeView.parse(f.view));
  const attached = () => f.devices.filter((d) => d.status === "attached");
  switch (op) {
    case "open":
      if (c.status === "created") c.status = "presented";
      return answer();
    case "view":
      return answer();
    case "send":
      if (scenario === "delivery") {
        c.status = "code_sent";
        c.delivery_status = "failed";
        f.view.delivery_error = "550 mailbox unavailable";
        return error(res, 502, "delivery_failed", "The code could not be delivered: 550 mailbox unavailable");
      }
      c.status = "code_sent";
      c.channels = [...(c.channels ?? []), body.channel as "email"];
      c.delivery_status = "sent";
      f.view.resend_available_at = iso(30_000);
      return answer();
    case "verify":
      if (body.code === RIGHT_CODE) {
        c.status = "verified";
        c.email_verified = true;
        f.view.verified_channels = ["email"];
        return answer();
      }
      c.verify_attempts = (c.verify_attempts ?? 0) + 1;
      f.view.attempts_left -= 1;
      if (f.view.attempts_left <= 0) {
        c.status = "failed";
        f.view.failure_reason = "too_many_attempts";
        return error(res, 409, "too_many_attempts", "Too many wrong codes");
      }
      return error(res, 400, "invalid_code", "Wrong code");
    case "devices":
      return send(res, 200, { data: attached() });
    case "kick":
      for (const d of f.devices) if (d.id === body.device) d.status = "detached";
      return send(res, 200, { data: attached() });
    case "signup":
      return send(res, 200, { redirect: f.view.signup_url });
    case "complete":
      if (c.type === "account_sharing" && body.outcome !== "skip" && attached().length > (f.view.device_limit ?? 3))
        return error(res, 409, "over_device_limit", "Still over the device limit");
      c.status = body.outcome === "skip" ? "skipped" : "completed";
      return answer();
  }
  return error(res, 404, "not_found", "No such operation");
}

const TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html" };
const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const m = url.pathname.match(/^\/v3\/challenges\/([^/]+)\/(\w+)$/);
  if (m)
    return void api(req, res, decodeURIComponent(m[1]!), m[2]!).catch((e) => {
      console.error("fake API:", e);
      error(res, 500, "internal", String(e));
    });
  if (url.pathname === "/challenge/" || url.pathname.startsWith("/challenge/assets/")) {
    const file = url.pathname === "/challenge/" ? join(dist, "index.html") : join(dist, url.pathname.slice("/challenge/".length));
    try {
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      return void res.end(readFileSync(file));
    } catch {
      return error(res, 404, "not_found", "not built? run npm run build -w challenge-app");
    }
  }
  // The success page answers late, so the done screen stays up long enough to be photographed and checked.
  setTimeout(() => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>${url.pathname}</title><h1>${url.pathname}${url.search}</h1>`);
  }, 3000);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
if (process.argv.includes("--serve")) {
  // Keep only the server running, to click through by hand: <origin>/challenge/?challenge=ato-1&token=t
  console.log(`serving ${origin}/challenge/?challenge=ato-1&token=t (scenarios: ato, share, expired, failed, gone, broken, delivery)`);
  await new Promise(() => {});
}

// ---- the walk ----
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core"), "utf8");
const profile = mkdtempSync(join(tmpdir(), "tessera-preview-"));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const page = context.pages()[0] ?? (await context.newPage());
const problems: string[] = [];
page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
// The scenarios provoke HTTP errors on purpose; any other console error is a problem.
page.on(
  "console",
  (msg) => msg.type() === "error" && !msg.text().startsWith("Failed to load resource") && problems.push(`console: ${msg.text()}`),
);

let run = 0;
const open = async (scenario: string, lang: string, query = "") => {
  run += 1;
  await page.goto(`${origin}/challenge/?challenge=${scenario}-${run}&token=tok${query}&lang=${lang}`);
  await page.waitForSelector("h1:not(:empty)");
  await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"));
};
const title = () => page.textContent("h1");

async function shot(name: string, tag: string) {
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(out, `${name}.${tag}.png`), fullPage: true });
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  for (const v of result.violations)
    problems.push(`axe ${name}.${tag}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  const focused = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  const dir = await page.evaluate(() => document.documentElement.dir);
  console.log(`${name}.${tag}: h1="${await title()}" focus=${focused} dir=${dir} axe=${result.violations.length}`);
}

try {
  for (const [width, height] of [
    [320, 640],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const lang of ["en", "ar"]) {
      const tag = `${lang}.${width}`;
      // Account takeover: why → channel → code → wrong code → done.
      await open("ato", lang);
      await shot("01-intro", tag);
      await page.click("button.primary");
      await page.waitForSelector("input[type=radio]");
      await shot("02-channel", tag);
      await page.click("button[type=submit]");
      await page.waitForSelector("#code");
      await shot("03-code", tag);
      await page.fill("#code", "000000");
      await page.waitForSelector(".notice.error");
      await shot("04-code-wrong", tag);
      await page.fill("#code", RIGHT_CODE);
      await page.waitForSelector(".done-mark");
      await shot("05-done", tag);
      await page.waitForURL(/\/landing\?evaluation=eval_7Hq2$/);
      // Account sharing: why (skip, create my own account) → code → devices → kick two → within the limit.
      await open("share", lang);
      await shot("06-sharing-intro", tag);
      // One place to send the code: the intro's button sends it (no choice screen).
      await page.click("button.primary");
      await page.waitForSelector("#code");
      await page.fill("#code", RIGHT_CODE);
      await page.waitForSelector(".devices");
      await shot("07-devices-over", tag);
      await page.click(".device button");
      await page.waitForFunction(() => document.querySelectorAll(".device").length === 3);
      await page.click(".device button");
      await page.waitForFunction(() => document.querySelectorAll(".device").length === 2);
      await shot("08-devices-within", tag);
      await page.click("#continue");
      await page.waitForURL(/\/landing\?evaluation=/);
      // Dead ends.
      for (const [scenario, name] of [
        ["expired", "09-expired"],
        ["failed", "10-too-many"],
        ["gone", "11-invalid"],
        ["broken", "13-error"],
      ] as const) {
        await open(scenario, lang);
        await shot(name, tag);
      }
      await page.goto(`${origin}/challenge/?lang=${lang}`);
      await page.waitForSelector("h1:not(:empty)");
      await shot("11b-invalid-no-token", tag);
      await open("delivery", lang);
      await page.click("button.primary");
      await page.click("button[type=submit]");
      await page.waitForSelector(".problem");
      await shot("12-delivery", tag);
    }
  }
} catch (err) {
  problems.push(`walk stopped: ${(err as Error).message.split("\n")[0]} (see .screens/stopped.png)`);
  await page.screenshot({ path: join(out, "stopped.png"), fullPage: true });
  console.log(await page.content());
}
await context.close();
server.close();
rmSync(profile, { recursive: true, force: true });
console.log(problems.length ? `\n${problems.length} problem(s):\n${problems.join("\n")}` : "\nno axe violations, no page errors");
console.log(`screenshots in ${out}`);
process.exit(problems.length ? 1 : 0);
