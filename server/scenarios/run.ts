// Scenario suite (`npm run scenarios`): the honest population model (population/) replayed through the real HTTP API
// of an in-process server with a simulated clock, measured for device identity per browser family on a tuning set and
// on a held-out set (other seed, device models never used to derive the weights or tune anything); then labelled
// threats (account takeover, credential stuffing, account sharing, multi-accounting, fake accounts, bots, content
// abuse) against the tuning set's accounts, with recall and precision per threat. Deterministic (seeded).
// Options: SCENARIO_PEOPLE (default 250 per set), SCENARIO_DAYS (12).
import { DAY, HOUR, MIN, type Outcome, type Project, startHarness } from "./harness.js";
import { formatIdentity, measureIdentity } from "./identity.js";
import { components, userAgent } from "./population/browsers.js";
import { LOCALES } from "./population/catalogue.js";
import { population } from "./population/honest.js";
import { pick, rng } from "./population/random.js";

const PEOPLE = Number(process.env.SCENARIO_PEOPLE ?? 250);
const DAYS = Number(process.env.SCENARIO_DAYS ?? 12);
const START = Date.UTC(2026, 10, 1);
const t0 = performance.now();

const h = await startHarness(START);
const tuning = await measureIdentity(h, "tuning set (seed 1001)", {
  seed: 1001,
  people: PEOPLE,
  days: DAYS,
  heldOut: false,
  start: h.now(),
});
const heldOut = await measureIdentity(h, "held-out set (seed 2001, held-out device models)", {
  seed: 2001,
  people: PEOPLE,
  days: DAYS,
  heldOut: true,
  start: h.now(),
});

// ---- threats, against a project whose honest users are the tuning population's ------------------------------------------
type Label = "ato" | "credential_stuffing" | "account_sharing" | "multi_accounting" | "fake_account" | "bot" | "content_abuse";
const R = rng(20261122);
const threatProject: Project = await h.project("threats");
const victims: string[] = [];
// The victims' accounts exist: each signs up once from their own phone, and the backend lets them in.
for (const person of population({ seed: 3001, people: 120, days: 1, heldOut: false, start: h.now() })) {
  const b = person.browsers[0];
  if (!b) continue;
  const out = await h.client(threatProject, {
    action: "signup",
    userAgent: userAgent(b.state),
    components: components(b.state),
    token: `victim-${person.id}-token`,
    ip: pick(R, h.residential.get(person.locale.country) ?? []),
    user: person.user,
    email: person.email,
  });
  if (out.verdict === "allow") await h.consume(threatProject, out.id);
  victims.push(person.user);
  h.advance(2 * MIN);
}
const threatOutcomes: Array<{ label: Label; out: Outcome }> = [];
let attackerSeq = 0;
/** An attacker's browser: a real device model's components (the population model's), its own token. */
function attacker(tz: string) {
  const person = population({ seed: 4000 + ++attackerSeq, people: 1, days: 1, heldOut: false, start: h.now() })[0];
  const b = person?.browsers.find((x) => x.model.kind === "computer") ?? person?.browsers[0];
  if (!b) throw new Error("no attacker browser");
  b.state.tz = tz;
  return { userAgent: userAgent(b.state), components: components(b.state), token: `attacker-${attackerSeq}-token`, timezone: tz };
}
async function threat(label: Label, call: Parameters<typeof h.client>[1]) {
  threatOutcomes.push({ label, out: await h.client(threatProject, call) });
}
const countries = [...h.residential.keys()];
const tzOf = (country: string) => LOCALES.find(([l]) => l.country === country)?.[0].tz ?? "UTC";

for (let i = 0; i < 60; i++) {
  // ATO: new device, another country, through an anonymising network.
  const ip = i % 3 === 0 ? pick(R, h.torIps) : i % 3 === 1 ? pick(R, h.byKind.vpn) : pick(R, h.byKind.hosting);
  await threat("ato", {
    action: "login",
    ...attacker(pick(R, ["Europe/Moscow", "Asia/Shanghai", "America/Chicago", "Africa/Lagos"])),
    ip,
    user: pick(R, victims),
  });
  h.advance(13 * MIN);
}
for (let campaign = 0; campaign < 3; campaign++) {
  // Credential stuffing: one IP, one scripted browser, many accounts in minutes.
  const ip = pick(R, h.byKind.hosting);
  const b = attacker("UTC");
  for (let k = 0; k < 20; k++) {
    await threat("credential_stuffing", { action: "login", ...b, ip, user: pick(R, victims) });
    h.advance(5_000);
  }
  h.advance(HOUR);
}
for (let a = 0; a < 20; a++) {
  // Account sharing: one account on 5 devices in 3 countries at once.
  const owner = `shared_${a}`;
  const where = [pick(R, countries), pick(R, countries), pick(R, countries)];
  const browsers = Array.from({ length: 5 }, (_, k) => ({
    b: attacker(tzOf(where[k % 3] as string)),
    ip: pick(R, h.residential.get(where[k % 3] as string) ?? []),
  }));
  const first = browsers[0] as (typeof browsers)[number];
  const signup = await h.client(threatProject, { action: "signup", ...first.b, ip: first.ip, user: owner, email: `${owner}@example.net` });
  await h.consume(threatProject, signup.id);
  for (let round = 0; round < 2; round++) {
    for (const [k, { b, ip }] of browsers.entries()) {
      const out = await h.client(threatProject, { action: "access", ...b, ip, user: owner });
      if (k >= 3) threatOutcomes.push({ label: "account_sharing", out });
      h.advance(MIN);
    }
  }
  h.advance(DAY);
}
for (let d = 0; d < 15; d++) {
  // Multi-accounting and repeat trials: one browser, eight email-only sign-ups in a day, clearing storage between some.
  const country = pick(R, countries);
  const b = attacker(tzOf(country));
  const ip = pick(R, h.residential.get(country) ?? []);
  for (let k = 0; k < 8; k++) {
    const out = await h.client(threatProject, {
      action: "signup",
      ...b,
      token: `${b.token}-${k % 2 ? "cleared" : ""}${k}`,
      ip,
      email: `trial.${d}.${k}@example.net`,
    });
    if (out.verdict === "allow" || out.verdict === "restrict") await h.consume(threatProject, out.id);
    if (k >= 2) threatOutcomes.push({ label: "multi_accounting", out });
    h.advance(2 * HOUR);
  }
}
const DISPOSABLE = ["mailinator.com", "guerrillamail.com", "10minutemail.com", "yopmail.com", "temp-mail.org"];
for (let i = 0; i < 60; i++) {
  // Fake accounts: disposable email, datacenter or VPN network.
  await threat("fake_account", {
    action: "signup",
    ...attacker("UTC"),
    ip: i % 2 ? pick(R, h.byKind.hosting) : pick(R, h.byKind.vpn),
    user: `fake_${i}`,
    email: `x${i}${Math.floor(R() * 1e6)}@${pick(R, DISPOSABLE)}`,
  });
  h.advance(3 * MIN);
}
for (let i = 0; i < 60; i++) {
  // Bots: headless browsers in datacenters, HTTP libraries, automation markers from a home network.
  if (i % 3 === 0) {
    await threat("bot", {
      action: pick(R, ["signup", "login", "access"]),
      ...attacker("UTC"),
      automation: { webdriver: true, headless: true },
      ip: pick(R, h.byKind.hosting),
      user: `bot_${i}`,
    });
  } else if (i % 3 === 1) {
    const ua = pick(R, [
      "python-requests/2.31.0",
      "curl/8.5.0",
      "Go-http-client/1.1",
      "Scrapy/2.11 (+https://scrapy.org)",
      "HeadlessChrome/120.0",
    ]);
    await threat("bot", {
      action: "login",
      userAgent: ua,
      components: {},
      ip: pick(R, [...h.byKind.hosting, ...(h.residential.get("US") ?? [])]),
      user: pick(R, victims),
    });
  } else {
    const country = pick(R, countries);
    await threat("bot", {
      action: "signup",
      ...attacker(tzOf(country)),
      automation: { webdriver: true },
      ip: pick(R, h.residential.get(country) ?? []),
      user: `botr_${i}`,
    });
  }
  h.advance(2 * MIN);
}
const SPAM_TEXT = "Earn $500 a day working from home!!! Click here: www.quick-cash-now.xyz — contact me on WhatsApp +1 415 555 0199";
for (let i = 0; i < 60; i++) {
  // Spam: scam vocabulary with links and contact details; the same text pasted by many accounts.
  const text =
    i % 2 === 0
      ? SPAM_TEXT
      : pick(R, [
          "BUY NOW cheap viagra and casino bonus, best price guaranteed!!! http://pills.example.top",
          "Your account has been suspended, verify your account at http://secure-login.example.xyz and pay with gift cards",
          "Crypto giveaway: double your bitcoin, send to wallet, t.me/cryptodouble, limited offer, act now",
        ]);
  threatOutcomes.push({
    label: "content_abuse",
    out: await h.server(threatProject, "post", { user: `spammer_${i}`, ip: pick(R, h.residential.get("US") ?? []), content: { text } }),
  });
  h.advance(MIN);
}

// ---- figures ------------------------------------------------------------------------------------------------------------
const flagged = (verdict: string) => verdict !== "allow";
const honestOutcomes = [...tuning.outcomes, ...heldOut.outcomes];
const threatRows: string[] = [];
for (const t of ["ato", "credential_stuffing", "account_sharing", "multi_accounting", "fake_account", "bot", "content_abuse"] as Label[]) {
  const pos = threatOutcomes.filter((o) => o.label === t).map((o) => o.out);
  const tp = pos.filter((o) => flagged(o.verdict)).length;
  // Precision: of everything the policies that caught this threat flagged, how much was this threat (honest included).
  const policies = new Set(pos.filter((o) => flagged(o.verdict)).map((o) => o.policy));
  const byPolicies = (xs: Array<{ verdict: string; policy?: string }>) =>
    xs.filter((o) => flagged(o.verdict) && policies.has(o.policy)).length;
  const fp = byPolicies(honestOutcomes);
  const precision = tp + fp ? tp / (tp + fp) : 1;
  threatRows.push(
    `${t.padEnd(20)} n=${String(pos.length).padStart(4)}  recall ${(pos.length ? tp / pos.length : 0).toFixed(3)}  precision ${precision.toFixed(3)}  policies: ${[...policies].join(", ")}`,
  );
}

console.log("Tessera scenario suite (population model, simulated clock, embedded store)\n");
let ok = true;
for (const r of [tuning, heldOut]) {
  const { lines, ok: fine } = formatIdentity(r);
  ok &&= fine;
  for (const l of lines) console.log(l);
  console.log("");
}
console.log("threats (labelled traffic against the threat project; precision counts the honest populations' visits):");
for (const r of threatRows) console.log(`  ${r}`);
const sorted = [...h.timings].sort((a, b) => a - b);
console.log(
  `\nmedian time of one evaluation through app.inject: ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(2)} ms over ${sorted.length}; suite ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
console.log(
  ok
    ? "\nIDENTITY TARGETS MET (re-identification after drift ≥ 0.95 per family, 0 merges, ≤ 1 % of first sign-ups from a person's own browser challenged)"
    : "\nIDENTITY TARGETS NOT MET",
);
await h.close();
process.exit(ok ? 0 : 1);
