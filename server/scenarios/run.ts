// Scenario suite (`npm run scenarios`): labelled synthetic traffic replayed through the real HTTP API of an
// in-process server on a fresh embedded store, with a simulated clock. Prints recall and precision per threat,
// the false-positive rate on honest traffic, fingerprint re-identification, and the median evaluation time.
// IPs are real public addresses picked from the shipped data, so geolocation, hosting, VPN and Tor are exercised.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { geo, initGeo } from "../src/geo/index.js";
import { createServices } from "../src/services.js";
import { asWire, makeDevice, rng, type SyntheticDevice, updateDevice } from "./devices.js";
import { measureReidentification } from "./reidentify.js";

// ---- simulated clock: the in-process server reads Date.now() -------------------------------------------------
const realNow = Date.now.bind(Date);
let clock = Date.UTC(2026, 10, 1, 8);
Date.now = () => clock;
const advance = (ms: number) => {
  clock += ms;
};
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const R = rng(20261122);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(R() * xs.length)] as T;

// ---- IP pools from the shipped data ----------------------------------------------------------------------------
initGeo();
const COUNTRIES: Record<string, { tz: string; offset: number }> = {
  GB: { tz: "Europe/London", offset: 0 },
  DE: { tz: "Europe/Berlin", offset: 1 },
  FR: { tz: "Europe/Paris", offset: 1 },
  JP: { tz: "Asia/Tokyo", offset: 9 },
  BR: { tz: "America/Sao_Paulo", offset: -3 },
  AU: { tz: "Australia/Sydney", offset: 10 },
  IN: { tz: "Asia/Kolkata", offset: 5.5 },
  US: { tz: "America/New_York", offset: -5 },
};
const residential: Record<string, string[]> = Object.fromEntries(Object.keys(COUNTRIES).map((c) => [c, []]));
const byKind: Record<"hosting" | "vpn", string[]> = { hosting: [], vpn: [] };
const ipr = rng(7);
for (let i = 0; i < 400_000 && Object.values(residential).some((l) => l.length < 400); i++) {
  const ip = [1 + Math.floor(ipr() * 222), Math.floor(ipr() * 256), Math.floor(ipr() * 256), 1 + Math.floor(ipr() * 250)].join(".");
  const g = geo().lookup(ip);
  const list = g.country_code ? residential[g.country_code] : undefined;
  const c = g.country_code ? COUNTRIES[g.country_code] : undefined;
  if (!list || !c || g.network || g.tor || g.longitude === undefined || list.length >= 400) continue;
  if (Math.abs(g.longitude / 15 - c.offset) > 2) continue; // the honest browser's zone fits where it is
  list.push(ip);
}
for (const line of fs.readFileSync(new URL("../data/networks.txt", import.meta.url), "utf8").split("\n")) {
  const m = /^(\d+\.\d+\.\d+)\.\d+-\S+ AS(\d+)/.exec(line);
  if (!m) continue;
  const ip = `${m[1]}.${10 + Math.floor(ipr() * 200)}`;
  const g = geo().lookup(ip);
  if (g.network === "hosting" && byKind.hosting.length < 300 && ipr() < 0.05) byKind.hosting.push(ip);
  if (g.network === "vpn" && byKind.vpn.length < 300 && ipr() < 0.1) byKind.vpn.push(ip);
}
const torIps = Array.from({ length: 50 }, (_, i) => `185.220.101.${i + 1}`);
const countries = Object.keys(COUNTRIES);

// ---- the server ---------------------------------------------------------------------------------------------------
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-scenarios-"));
const config = loadConfig({
  NODE_ENV: "test",
  LOG_LEVEL: "silent",
  DATA_DIR: dir,
  BOOTSTRAP_PROJECT: "0",
  WORKERS: "0",
  CLIENT_RATE_LIMIT: "1000000",
  CLIENT_ID_RATE_LIMIT: "1000000",
});
const services = await createServices(config);
const app = await buildApp(services, { logger: false });
await app.ready();
const project = await services.repos.projects.create("Scenarios");
const clientId = project.environments.development.client_id;
const auth = { authorization: `Bearer ${project.environments.development.secret}` };

type Label = "honest" | "ato" | "credential_stuffing" | "account_sharing" | "multi_accounting" | "fake_account" | "bot" | "content_abuse";
interface Outcome {
  label: Label;
  verdict: string;
  policy?: string;
  fingerprint?: string;
  checks?: Record<string, unknown>;
}
const outcomes: Outcome[] = [];
const timings: number[] = [];

interface Browser {
  device: SyntheticDevice;
  token: string;
  automation?: Record<string, unknown>;
  components?: boolean;
}

async function clientEvaluate(label: Label | null, action: string, b: Browser, ip: string, body: Record<string, unknown> = {}) {
  const t0 = performance.now();
  const res = await app.inject({
    method: "POST",
    url: `/v3/client/evaluate/${action}`,
    remoteAddress: ip,
    headers: { "user-agent": b.device.userAgent },
    payload: {
      client_id: clientId,
      ...body,
      signals: {
        components: b.components === false ? {} : asWire(b.device.components),
        visitor_token: b.token,
        timezone: b.device.components.timezone,
        ...(b.automation ? { automation: b.automation } : {}),
      },
    },
  });
  timings.push(performance.now() - t0);
  if (res.statusCode !== 200) throw new Error(`client evaluate ${res.statusCode}: ${res.body}`);
  const ev = (await app.inject({ method: "GET", url: `/v3/evaluations/${res.json().evaluation_id}`, headers: auth })).json();
  const out: Outcome = {
    label: label ?? "honest",
    verdict: ev.verdict,
    policy: ev.policy?.name,
    fingerprint: ev.fingerprint?.id,
    checks: ev.checks,
  };
  if (label) outcomes.push(out);
  return out;
}

async function serverEvaluate(label: Label, action: string, body: Record<string, unknown>) {
  const t0 = performance.now();
  const res = await app.inject({ method: "POST", url: `/v3/evaluate/${action}`, headers: auth, payload: body });
  timings.push(performance.now() - t0);
  if (res.statusCode !== 200) throw new Error(`server evaluate ${res.statusCode}: ${res.body}`);
  const ev = res.json();
  outcomes.push({ label, verdict: ev.verdict, policy: ev.policy?.name });
  return ev;
}

let seq = 0;
const newBrowser = (tz: string, extra: Partial<Browser> = {}): Browser => ({
  device: makeDevice(++seq, tz),
  token: `tok-${seq}-${Math.floor(R() * 1e9)}`,
  ...extra,
});

// ---- honest users ---------------------------------------------------------------------------------------------------
const HONEST = 150;
const honest: { id: string; email: string; country: string; home: string; browser: Browser }[] = [];
const reid = { http: 0, httpSame: 0 };
for (let i = 0; i < HONEST; i++) {
  const country = pick(countries);
  const home = pick(residential[country] as string[]);
  const user = {
    id: `user_${i}`,
    email: `person${i}@${pick(["gmail.com", "outlook.com", "acme-corp.com", "yahoo.fr"])}`,
    country,
    home,
    browser: newBrowser((COUNTRIES[country] as { tz: string }).tz),
  };
  honest.push(user);
  await clientEvaluate("honest", "signup", user.browser, home, { user: user.id, email: user.email });
  advance(10 * MIN);
}
for (let round = 0; round < 5; round++) {
  for (const [i, u] of honest.entries()) {
    advance(7 * MIN);
    if (round === 2 && i % 3 === 0) {
      // A browser update between visits: same fingerprint expected, lower confidence.
      const before = (await clientEvaluate(null, "access", u.browser, u.home, { user: u.id })).fingerprint;
      u.browser = { ...u.browser, device: updateDevice(u.browser.device) };
      const after = await clientEvaluate("honest", "login", u.browser, u.home, { user: u.id });
      reid.http++;
      if (after.fingerprint === before) reid.httpSame++;
      continue;
    }
    if (round === 3 && i % 5 === 1) {
      // Travel: half a day later, from another country, the device's zone following it.
      advance(12 * HOUR);
      const there = pick(countries.filter((c) => c !== u.country));
      const away: Browser = {
        ...u.browser,
        device: { ...u.browser.device, components: { ...u.browser.device.components, timezone: (COUNTRIES[there] as { tz: string }).tz } },
      };
      await clientEvaluate("honest", "login", away, pick(residential[there] as string[]), { user: u.id });
      continue;
    }
    if (round === 4 && i % 3 === 2) {
      // A second device (a phone or tablet) on the home network.
      await clientEvaluate("honest", "login", newBrowser((COUNTRIES[u.country] as { tz: string }).tz), u.home, { user: u.id });
      continue;
    }
    if (round === 1 && i % 10 === 4) {
      // A family member signs up on the same computer.
      await clientEvaluate("honest", "signup", u.browser, u.home, { user: `${u.id}_family`, email: `family${i}@gmail.com` });
    }
    await clientEvaluate("honest", "login", u.browser, u.home, { user: u.id });
    await clientEvaluate("honest", "access", u.browser, u.home, { user: u.id });
    if (round % 2 === 0 && i % 4 === 0) {
      await serverEvaluate("honest", "post", {
        user: u.id,
        ip: u.home,
        content: {
          text:
            pick([
              "Thanks for the quick delivery, the jacket fits well.",
              "Does anyone know if the app works offline?",
              "Great article, I learned a lot about sourdough.",
              "I had the same issue after the update; restarting fixed it.",
            ]) + ` (${i}-${round})`,
        },
      });
    }
  }
  advance(DAY);
}

// ---- threats ---------------------------------------------------------------------------------------------------------
for (let i = 0; i < 60; i++) {
  // ATO: new device, another country, through an anonymising network.
  const victim = pick(honest);
  const ip = i % 3 === 0 ? pick(torIps) : i % 3 === 1 ? pick(byKind.vpn) : pick(byKind.hosting);
  await clientEvaluate("ato", "login", newBrowser(pick(["Europe/Moscow", "Asia/Shanghai", "America/Chicago", "Africa/Lagos"])), ip, {
    user: victim.id,
  });
  advance(13 * MIN);
}
for (let campaign = 0; campaign < 3; campaign++) {
  // Credential stuffing: one IP, one scripted browser, many accounts in minutes.
  const ip = pick(byKind.hosting);
  const b = newBrowser("UTC");
  for (let k = 0; k < 20; k++) {
    await clientEvaluate("credential_stuffing", "login", b, ip, { user: pick(honest).id });
    advance(5_000);
  }
  advance(HOUR);
}
for (let a = 0; a < 20; a++) {
  // Account sharing: one account on 5 devices in 3 cities at once.
  const owner = `shared_${a}`;
  const cities = [pick(countries), pick(countries), pick(countries)];
  const browsers = Array.from({ length: 5 }, (_, k) => ({
    b: newBrowser((COUNTRIES[cities[k % 3] as string] as { tz: string }).tz),
    ip: pick(residential[cities[k % 3] as string] as string[]),
  }));
  await clientEvaluate(null, "signup", browsers[0]?.b as Browser, browsers[0]?.ip as string, { user: owner, email: `${owner}@gmail.com` });
  for (let round = 0; round < 2; round++) {
    for (const [k, { b, ip }] of browsers.entries()) {
      await clientEvaluate(k >= 3 ? "account_sharing" : null, "access", b, ip, { user: owner });
      advance(MIN);
    }
  }
  advance(DAY);
}
for (let d = 0; d < 15; d++) {
  // Multi-accounting and repeat trials: one device, eight sign-ups in a day.
  const country = pick(countries);
  const b = newBrowser((COUNTRIES[country] as { tz: string }).tz);
  const ip = pick(residential[country] as string[]);
  for (let k = 0; k < 8; k++) {
    await clientEvaluate(k >= 2 ? "multi_accounting" : null, "signup", { ...b, token: `${b.token}-${k % 2 ? "cleared" : ""}${k}` }, ip, {
      user: `multi_${d}_${k}`,
      email: `trial${d}x${k}@gmail.com`,
    });
    advance(2 * HOUR);
  }
}
const DISPOSABLE = ["mailinator.com", "guerrillamail.com", "10minutemail.com", "yopmail.com", "temp-mail.org"];
for (let i = 0; i < 60; i++) {
  // Fake accounts: disposable email, datacenter or VPN network.
  const b = newBrowser("UTC");
  await clientEvaluate("fake_account", "signup", b, i % 2 ? pick(byKind.hosting) : pick(byKind.vpn), {
    user: `fake_${i}`,
    email: `x${i}${Math.floor(R() * 1e6)}@${pick(DISPOSABLE)}`,
  });
  advance(3 * MIN);
}
for (let i = 0; i < 60; i++) {
  // Bots: headless browsers in datacenters, HTTP libraries, automation markers from a home network.
  if (i % 3 === 0) {
    await clientEvaluate(
      "bot",
      pick(["signup", "login", "access"]),
      newBrowser("UTC", { automation: { webdriver: true, headless: true } }),
      pick(byKind.hosting),
      { user: `bot_${i}` },
    );
  } else if (i % 3 === 1) {
    const b = newBrowser("UTC", { components: false });
    b.device = {
      ...b.device,
      userAgent: pick([
        "python-requests/2.31.0",
        "curl/8.5.0",
        "Go-http-client/1.1",
        "Scrapy/2.11 (+https://scrapy.org)",
        "HeadlessChrome/120.0",
      ]),
    };
    await clientEvaluate("bot", "login", b, pick([...byKind.hosting, ...(residential.US as string[])]), { user: pick(honest).id });
  } else {
    const country = pick(countries);
    await clientEvaluate(
      "bot",
      "signup",
      newBrowser((COUNTRIES[country] as { tz: string }).tz, { automation: { webdriver: true } }),
      pick(residential[country] as string[]),
      { user: `botr_${i}` },
    );
  }
  advance(2 * MIN);
}
const SPAM_TEXT = "Earn $500 a day working from home!!! Click here: www.quick-cash-now.xyz — contact me on WhatsApp +1 415 555 0199";
for (let i = 0; i < 60; i++) {
  // Spam: scam vocabulary with links and contact details; the same text pasted by many accounts.
  const text =
    i % 2 === 0
      ? SPAM_TEXT
      : pick([
          "BUY NOW cheap viagra and casino bonus, best price guaranteed!!! http://pills.example.top",
          "Your account has been suspended, verify your account at http://secure-login.example.xyz and pay with gift cards",
          "Crypto giveaway: double your bitcoin, send to wallet, t.me/cryptodouble, limited offer, act now",
        ]);
  await serverEvaluate("content_abuse", "post", { user: `spammer_${i}`, ip: pick(residential.US as string[]), content: { text } });
  advance(MIN);
}

// ---- figures ------------------------------------------------------------------------------------------------------------
const flagged = (o: Outcome) => o.verdict !== "allow";
const challengedOrDenied = (o: Outcome) => o.verdict === "challenge" || o.verdict === "deny" || o.verdict === "challenge_and_restrict";
const honestOut = outcomes.filter((o) => o.label === "honest");
const threats: Label[] = ["ato", "credential_stuffing", "account_sharing", "multi_accounting", "fake_account", "bot", "content_abuse"];
const rows: string[] = [];
let ok = true;
for (const t of threats) {
  const pos = outcomes.filter((o) => o.label === t);
  const tp = pos.filter(flagged).length;
  const recall = pos.length ? tp / pos.length : 0;
  // Precision: of everything flagged by the policies that caught this threat, how much was this threat.
  const policies = new Set(pos.filter(flagged).map((o) => o.policy));
  const flaggedBySame = outcomes.filter((o) => flagged(o) && policies.has(o.policy) && (o.label === "honest" || o.label === t));
  const precision = flaggedBySame.length ? flaggedBySame.filter((o) => o.label === t).length / flaggedBySame.length : 1;
  if (recall < 0.95) ok = false;
  if (process.env.SCENARIO_DEBUG)
    for (const o of pos.filter((x) => !flagged(x)).slice(0, 3))
      console.log("missed", t, o.verdict, o.policy, JSON.stringify(o.checks).slice(0, 200));
  rows.push(
    `${t.padEnd(20)} n=${String(pos.length).padStart(4)}  recall ${recall.toFixed(3)}  precision ${precision.toFixed(3)}  policies: ${[...policies].join(", ")}`,
  );
}
const fp = honestOut.filter(challengedOrDenied);
const fpRate = fp.length / honestOut.length;
const restricted = honestOut.filter((o) => o.verdict === "restrict").length;
if (fpRate > 0.01) ok = false;
const sorted = [...timings].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? 0;

console.log("Tessera scenario suite (synthetic, labelled; simulated clock; embedded store)\n");
for (const r of rows) console.log(r);
console.log(
  `\nhonest evaluations: ${honestOut.length}; challenged or denied: ${fp.length} (${(fpRate * 100).toFixed(2)}%); restricted: ${restricted}`,
);
for (const o of fp.slice(0, 10)) console.log(`  false positive: ${o.verdict} by "${o.policy}"`);
console.log(
  `fingerprint re-identification over HTTP after a minor browser update: ${reid.httpSame}/${reid.http} = ${(reid.httpSame / Math.max(1, reid.http)).toFixed(3)}`,
);
const re = measureReidentification(10_000);
console.log(
  `fingerprint re-identification in-process, ${re.devices} synthetic devices: ${re.reidentified}/${re.devices} = ${(re.reidentified / re.devices).toFixed(4)}; merges of distinct devices: ${re.merges}; mean confidence after update ${re.meanConfidence.toFixed(3)}`,
);
if (re.reidentified / re.devices < 0.95 || re.merges > 0) ok = false;
console.log(
  `median time of one evaluation through app.inject (client evaluate, embedded store): ${median.toFixed(2)} ms over ${timings.length}`,
);
console.log(ok ? "\nTARGETS MET" : "\nTARGETS NOT MET");

Date.now = realNow;
await app.close();
await services.close();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
