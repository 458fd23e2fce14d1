// Labelled attacks, modelled on what attackers really do, scheduled in time among a population's honest visits (the
// runner interleaves them by timestamp: the service sees both at once, as in production). Each attack names its
// victims when it runs (accounts the service has already met), so the owners' own later visits show whether an attack
// hurt them (impossible travel from the attacker's city, a network made familiar by the attacker...).
//
// - credential_stuffing: one browser on one IP (a VPS, or a hijacked home machine) trying a combo list: accounts the
//   service knows and accounts it has never met, seconds apart.
// - distributed_stuffing: the same list through a residential proxy network: a fresh address in a random country on
//   every attempt, from one or two browser profiles (cookies kept, or cleared on every attempt).
// - distributed_stuffing_slow: the same runs, low and slow: one attempt every 30 to 60 minutes (a run of 25 lasts
//   about a day), under any hourly count.
// - anti_detect: an anti-detect browser (every high-entropy component — canvas, WebGL, audio, fonts, screen, cores —
//   new on each attempt, no visitor token): logins on a combo list from one residential /24 or through one provider's
//   ASN (a cloud's, a VPN's or a proxy network's addresses, across its /24s), or sign-ups through one provider's ASN.
// - anti_detect_slow: the same runs, low and slow: one attempt every 20 to 60 minutes, so that no hour holds more than
//   three (a run of twenty lasts half a day). Both keep their operator's zone (Berlin); SCENARIO_RIG_ZONE=proxy sets
//   each attempt to a zone of its exit's country instead, as anti-detect browsers do by default.
// - stealth_headless: headless Chromium with its markers removed: a Windows user agent over Linux client hints and
//   platform, the SwiftShader renderer, an 800×600 frameless window, 2 cores; sign-ups and logins.
// - account_sharing: an account whose owner shares the password: friends in other cities watch in the same evening,
//   each on their own browser; their visits are the labelled ones.
// - ato: a known password, a new browser, a new network: Tor, a VPN, a datacenter, or a residential proxy abroad.
// - ato_primed: the same attackers (networks, zones), who first open pages naming the victim from there (the client id
//   is public, and a page asks for no password), hours before the login: what would make the place, the zone and the
//   browser the account's if trusted history believed whatever a browser names. Only the login is labelled.
// - fake_account: disposable emails from datacenters, VPNs and homes.
// - tor: Tor Browser (Firefox ESR with resistFingerprinting: UTC, en-US, 2 cores) signing up and logging in.
// - multi_accounting: one person opening account after account on one browser (storage cleared between some).
// - bot: HTTP libraries and headless browsers with their markers; content_abuse: spam posted by many accounts.
// - signup_farm: an anti-detect browser making a new profile for every account (canvas, WebGL, audio, fonts, screen,
//   cores drawn anew; no visitor token kept; the zone of the proxy's country, the operator's own language and fonts),
//   signing up one account every 12 minutes for a morning through one home address, or through one residential /24.
// - multi_accounting_networks: one computer signing up about twenty accounts a day, its storage cleared before each
//   (no visitor token), alternating its home line and its phone's mobile connection (a new carrier address each time).
import { geo } from "../src/geo/index.js";
import { utcOffsetHours, zonesOfCountry } from "../src/signals/timezone.js";
import { type ClientCall, DAY, type Harness, HOUR, MIN, type Outcome, type Project } from "./harness.js";
import { components, userAgent } from "./population/browsers.js";
import { LOCALES } from "./population/catalogue.js";
import { population } from "./population/honest.js";
import { chance, digest, int, pick, type Rng, stream } from "./population/random.js";

export const ATTACKS = [
  "credential_stuffing",
  "distributed_stuffing",
  "distributed_stuffing_slow",
  "anti_detect",
  "anti_detect_slow",
  "stealth_headless",
  "account_sharing",
  "ato",
  "ato_primed",
  "fake_account",
  "tor",
  "multi_accounting",
  "bot",
  "content_abuse",
  "signup_farm",
  "multi_accounting_networks",
] as const;
export type AttackLabel = (typeof ATTACKS)[number];

export interface AttackContext {
  h: Harness;
  p: Project;
  /** Accounts of the population the service has met (a login or sign-up let in), at this moment. */
  known(): string[];
  /** `note`: which campaign and attempt (printed with a miss under SCENARIO_DEBUG). */
  record(label: AttackLabel, out: Outcome, note?: string): void;
}

export interface AttackStep {
  at: number;
  run(ctx: AttackContext): Promise<void>;
}

export type Browser = Pick<ClientCall, "userAgent" | "components" | "timezone"> & { token?: string };

const COUNTRIES = ["US", "GB", "FR", "DE", "ES", "BR", "JP", "IN", "AU"];
const tzOf = (country: string) => LOCALES.find(([l]) => l.country === country)?.[0].tz ?? "UTC";
const GPUS = [
  "ANGLE (Intel, Intel(R) UHD Graphics 620 (0x00005917) Direct3D11 vs_5_0 ps_5_0, D3D11)",
  "ANGLE (Intel, Intel(R) Iris(R) Xe Graphics (0x00009A49) Direct3D11 vs_5_0 ps_5_0, D3D11)",
  "ANGLE (NVIDIA, NVIDIA GeForce GTX 1060 6GB (0x00001C03) Direct3D11 vs_5_0 ps_5_0, D3D11)",
  "ANGLE (NVIDIA, NVIDIA GeForce RTX 2070 (0x00001F02) Direct3D11 vs_5_0 ps_5_0, D3D11)",
  "ANGLE (AMD, AMD Radeon RX 580 Series (0x000067DF) Direct3D11 vs_5_0 ps_5_0, D3D11)",
  "ANGLE (AMD, AMD Radeon(TM) Graphics (0x00001638) Direct3D11 vs_5_0 ps_5_0, D3D11)",
];
const EXTRA_FONTS = [
  "Agency FB",
  "Century",
  "Haettenschweiler",
  "MS Outlook",
  "Pristina",
  "MYRIAD PRO",
  "Minion Pro",
  "SimHei",
  "Meiryo UI",
];
const DISPOSABLE = ["mailinator.com", "guerrillamail.com", "10minutemail.com", "yopmail.com", "temp-mail.org"];

/**
 * A real browser of the population model (a computer's, else the first), in the attacker's time zone. `rig`: a
 * Chromium on Windows, what stuffing and farming tools drive (OpenBullet, anti-detect browsers, Puppeteer farms).
 */
export function realBrowser(seed: number, tz: string, token?: string, rig = false, locale?: (typeof LOCALES)[number][0]): Browser {
  let b: ReturnType<typeof population>[number]["browsers"][number] | undefined;
  for (let k = 0; !b || (rig && (b.model.os !== "windows" || b.state.browser === "firefox")); k++) {
    const person = population({ seed: seed * 1000 + k, people: 1, days: 1, heldOut: false, start: 0 })[0];
    b = person?.browsers.find((x) => x.model.kind === "computer") ?? person?.browsers[0];
    if (k > 200) throw new Error("no attacker browser");
  }
  b.state.tz = tz;
  if (locale) Object.assign(b.state, { lang: locale.lang, langs: locale.langs, locale: locale.locale });
  return { userAgent: userAgent(b.state), components: components(b.state), timezone: tz, ...(token ? { token } : {}) };
}

/** A Windows Chrome of the model whose identifying components an anti-detect browser draws anew. */
export function antiDetect(r: Rng, base: Browser): Browser {
  const c = structuredClone(base.components) as Record<string, unknown>;
  const n = int(r, 1, 1e9);
  c.canvas = { winding: true, geometry: `data:image/png;base64,${digest("adg", n)}`, text: `data:image/png;base64,${digest("adt", n)}` };
  c.webGlBasics = { ...(c.webGlBasics as object), rendererUnmasked: pick(r, GPUS) };
  c.audio = 124.04347527516074 + (r() - 0.5) * 1e-4;
  c.fonts = [...new Set([...((c.fonts as string[]) ?? []), ...EXTRA_FONTS.filter(() => chance(r, 0.4))])].sort();
  c.hardwareConcurrency = pick(r, [4, 6, 8, 12, 16]);
  c.deviceMemory = pick(r, [4, 8]);
  c.screenResolution = pick(r, [
    [1920, 1080],
    [1536, 864],
    [1366, 768],
    [2560, 1440],
  ]);
  return { userAgent: base.userAgent, components: c, ...(base.timezone ? { timezone: base.timezone } : {}) };
}

const ip24 = (r: Rng, prefix: string) => `${prefix}.${int(r, 2, 250)}`;
const prefixOf = (ip: string) => ip.split(".").slice(0, 3).join(".");

/** The attacks against one population's project over `days` days from `start`. Deterministic in `seed`. */
export function attackSchedule(h: Harness, opts: { seed: number; days: number; start: number }): AttackStep[] {
  const steps: AttackStep[] = [];
  const r = stream(opts.seed, "attacks");
  const when = (name: string, i: number) => {
    const s = stream(opts.seed, "attack-time", name, i);
    return opts.start + int(s, 1, opts.days - 1) * DAY + int(s, 0, 23 * 3600) * 1000;
  };
  const residential = (country: string) => h.residential.get(country) ?? [];
  const anyResidential = (s: Rng) => pick(s, residential(pick(s, COUNTRIES)));
  let attacker = opts.seed * 100;
  // A combo list: accounts the service knows (drawn when the attempt runs) and accounts it has never met.
  const target = (ctx: AttackContext, s: Rng, campaign: string, k: number) => {
    const known = ctx.known();
    return known.length && chance(s, 0.6) ? pick(s, known) : `leaked_${opts.seed}_${campaign}_${k}`;
  };

  // ---- credential stuffing from one browser on one IP ----------------------------------------------------------------
  for (let c = 0; c < 3; c++) {
    const s = stream(opts.seed, "stuffing", c);
    const ip = c === 2 ? anyResidential(s) : pick(s, h.byKind.hosting);
    const b = realBrowser(++attacker, "UTC", chance(s, 0.5) ? `stuff-${opts.seed}-${c}` : undefined, true);
    const t0 = when("stuffing", c);
    for (let k = 0; k < 25; k++)
      steps.push({
        at: t0 + k * int(s, 3, 10) * 1000,
        run: async (ctx) =>
          ctx.record(
            "credential_stuffing",
            await ctx.h.client(ctx.p, { action: "login", ...b, ip, user: target(ctx, s, `s${c}`, k) }),
            `campaign ${c} attempt ${k}`,
          ),
      });
  }
  // ---- distributed stuffing: residential proxies, one or two browser profiles ----------------------------------------
  // `gap`: seconds between attempts (the slow runs are last in the schedule, as the slow anti-detect runs are).
  const distributedRun = (
    label: "distributed_stuffing" | "distributed_stuffing_slow",
    stem: string,
    tag: string,
    gap: [number, number],
  ) => {
    for (let c = 0; c < 3; c++) {
      const s = stream(opts.seed, stem, c);
      const keepsCookies = c !== 1;
      const profiles = [realBrowser(++attacker, "UTC", undefined, true), realBrowser(++attacker, "America/New_York", undefined, true)];
      const t0 = when(stem, c);
      for (let k = 0; k < 25; k++) {
        const b = profiles[k % (c === 2 ? 1 : 2)] as Browser;
        const token = keepsCookies ? `dist${tag}-${opts.seed}-${c}-${k % 2}` : undefined;
        steps.push({
          at: t0 + k * int(s, gap[0], gap[1]) * 1000,
          run: async (ctx) =>
            ctx.record(
              label,
              await ctx.h.client(ctx.p, {
                action: "login",
                ...b,
                ...(token ? { token } : {}),
                ip: anyResidential(s),
                user: target(ctx, s, `d${tag}${c}`, k),
              }),
              `campaign ${c} attempt ${k}`,
            ),
        });
      }
    }
  };
  distributedRun("distributed_stuffing", "distributed", "", [20, 90]);
  // ---- anti-detect browser: new components on every attempt, no token, one /24 or one provider's ASN -------------------
  // `gap`: seconds between attempts. Each campaign draws its attacker seed in schedule order (see the slow run, last).
  const antiDetectRun = (label: "anti_detect" | "anti_detect_slow", stem: string, tag: string, gap: [number, number]) => {
    // Campaigns: logins from a residential /24 (0, 2), sign-ups (1) and logins (3) through one provider's ASN.
    for (let c = 0; c < 4; c++) {
      const s = stream(opts.seed, stem, c);
      const base = realBrowser(++attacker, "Europe/Berlin", undefined, true);
      const provider = [...h.providers.values()].filter((x) => x.length >= 6);
      const asnPool = c === 1 || c === 3 ? pick(s, provider) : undefined;
      const prefix = prefixOf(anyResidential(s));
      const t0 = when(stem, c);
      for (let k = 0; k < 20; k++) {
        const b = antiDetect(s, base);
        const ip = asnPool ? pick(s, asnPool) : ip24(s, prefix);
        if (process.env.SCENARIO_RIG_ZONE === "proxy") {
          // SCENARIO_RIG_ZONE=proxy: the rig takes a zone of its exit's country nearest its longitude, as anti-detect
          // browsers do by default (the suite's model keeps Berlin, its operator's).
          const g = geo().lookup(ip);
          const zones = [...zonesOfCountry(g.country_code ?? "")];
          const solar = (g.longitude ?? 0) / 15;
          const off = (z: string) => Math.abs((utcOffsetHours(z, Date.UTC(2026, 10, 1)) ?? 99) - solar);
          const zone = zones.sort((x, y) => off(x) - off(y))[0];
          if (zone) {
            b.timezone = zone;
            (b.components as Record<string, unknown>).timezone = zone;
          }
        }
        const signup = c === 1;
        steps.push({
          at: t0 + k * int(s, gap[0], gap[1]) * 1000,
          run: async (ctx) => {
            const out = signup
              ? await ctx.h.client(ctx.p, {
                  action: "signup",
                  ...b,
                  ip,
                  email: `${digest(`farm${tag}`, opts.seed, c, k).slice(0, 10)}@gmail.com`,
                })
              : await ctx.h.client(ctx.p, { action: "login", ...b, ip, user: target(ctx, s, `a${tag}${c}`, k) });
            if (signup && (out.verdict === "allow" || out.verdict === "restrict")) await ctx.h.consume(ctx.p, out.id);
            ctx.record(label, out, `campaign ${c} attempt ${k}`);
          },
        });
      }
    }
  };
  antiDetectRun("anti_detect", "antidetect", "", [60, 240]);
  // ---- stealth headless Chromium ---------------------------------------------------------------------------------------
  for (let c = 0; c < 2; c++) {
    const s = stream(opts.seed, "stealth", c);
    const ip = c === 0 ? pick(s, h.byKind.hosting) : anyResidential(s);
    const t0 = when("stealth", c);
    for (let k = 0; k < 15; k++) {
      const base = realBrowser(++attacker, "UTC", undefined, true);
      const comps = structuredClone(base.components) as Record<string, unknown>;
      comps.userAgentData = { ...(comps.userAgentData as object), platform: "Linux", platformVersion: "6.8.0" };
      comps.platform = "Linux x86_64";
      comps.webGlBasics = {
        ...(comps.webGlBasics as object),
        vendorUnmasked: "Google Inc. (Google)",
        rendererUnmasked: "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)",
      };
      comps.screenResolution = [800, 600];
      comps.hardwareConcurrency = 2;
      const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
      const window = { outer_width: 800, outer_height: 600, inner_width: 800, inner_height: 600, screen_width: 800, screen_height: 600 };
      steps.push({
        at: t0 + k * int(s, 30, 120) * 1000,
        run: async (ctx) =>
          ctx.record(
            "stealth_headless",
            k % 2
              ? await ctx.h.client(ctx.p, {
                  action: "login",
                  userAgent: ua,
                  components: comps,
                  window,
                  ip,
                  user: target(ctx, s, `h${c}`, k),
                })
              : await ctx.h.client(ctx.p, {
                  action: "signup",
                  userAgent: ua,
                  components: comps,
                  window,
                  ip,
                  email: `${digest("stealth", opts.seed, c, k).slice(0, 9)}@outlook.com`,
                }),
          ),
      });
    }
  }
  // ---- account sharing: an owner and friends in other cities, the same evenings -----------------------------------------
  for (let a = 0; a < 4; a++) {
    const s = stream(opts.seed, "sharing", a);
    const owner = `share_${opts.seed}_${a}`;
    const homeCountry = pick(s, COUNTRIES);
    const people = [
      homeCountry,
      ...Array.from({ length: int(s, 2, 3) }, () =>
        pick(
          s,
          COUNTRIES.filter((x) => x !== homeCountry),
        ),
      ),
    ];
    const members = people.map((country, i) => ({
      b: realBrowser(++attacker, tzOf(country), `share-${opts.seed}-${a}-${i}`),
      ip: pick(s, residential(country)),
    }));
    const t0 = opts.start + DAY + int(s, 0, 12) * HOUR;
    const first = members[0] as (typeof members)[number];
    steps.push({
      at: t0,
      run: async (ctx) => {
        const out = await ctx.h.client(ctx.p, { action: "signup", ...first.b, ip: first.ip, user: owner, email: `${owner}@example.net` });
        await ctx.h.consume(ctx.p, out.id);
      },
    });
    for (let evening = 1; evening <= Math.min(4, opts.days - 2); evening++) {
      const at = t0 + evening * DAY;
      for (const [i, m] of members.entries())
        steps.push({
          at: at + i * int(s, 1, 5) * MIN,
          run: async (ctx) => {
            const out = await ctx.h.client(ctx.p, { action: "access", ...m.b, ip: m.ip, user: owner });
            if (i > 0) ctx.record("account_sharing", out);
          },
        });
    }
  }
  // ---- account takeover: a known password, a new browser, a new network ---------------------------------------------
  for (let i = 0; i < 24; i++) {
    const s = stream(opts.seed, "ato", i);
    const country = pick(s, COUNTRIES);
    const ip = [pick(s, h.torIps), pick(s, h.byKind.vpn), pick(s, h.byKind.hosting), pick(s, residential(country))][i % 4] as string;
    const b = realBrowser(++attacker, pick(s, ["Europe/Moscow", "Asia/Shanghai", "America/Chicago", "Africa/Lagos", tzOf(country)]));
    steps.push({
      at: when("ato", i),
      run: async (ctx) => {
        const known = ctx.known();
        if (!known.length) return;
        const out = await ctx.h.client(ctx.p, { action: "login", ...b, ip, user: pick(s, known) });
        if (out.verdict === "allow") await ctx.h.consume(ctx.p, out.id);
        ctx.record("ato", out, `attacker ${i}`);
      },
    });
  }
  // ---- fake accounts: disposable emails ---------------------------------------------------------------------------------
  for (let i = 0; i < 20; i++) {
    const s = stream(opts.seed, "fake", i);
    const ip = [pick(s, h.byKind.hosting), pick(s, h.byKind.vpn), anyResidential(s)][i % 3] as string;
    const b = realBrowser(++attacker, "UTC");
    steps.push({
      at: when("fake", i),
      run: async (ctx) =>
        ctx.record(
          "fake_account",
          await ctx.h.client(ctx.p, {
            action: "signup",
            ...b,
            ip,
            email: `x${digest("fake", opts.seed, i).slice(0, 8)}@${pick(s, DISPOSABLE)}`,
          }),
        ),
    });
  }
  // ---- Tor Browser ------------------------------------------------------------------------------------------------------
  for (let i = 0; i < 16; i++) {
    const s = stream(opts.seed, "tor", i);
    const base = realBrowser(++attacker, "UTC");
    const c = structuredClone(base.components) as Record<string, unknown>;
    c.languages = [["en-US"], ["en-US", "en"]];
    c.hardwareConcurrency = 2;
    c.timezone = "UTC";
    c.screenResolution = [1400, 900];
    c.canvas = { winding: true, geometry: "skipped", text: "skipped" };
    c.userAgentData = undefined;
    const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
    steps.push({
      at: when("tor", i),
      run: async (ctx) =>
        ctx.record(
          "tor",
          i % 2
            ? await ctx.h.client(ctx.p, {
                action: "login",
                userAgent: ua,
                components: c,
                timezone: "UTC",
                ip: pick(s, h.torIps),
                user: target(ctx, s, "t", i),
              })
            : await ctx.h.client(ctx.p, {
                action: "signup",
                userAgent: ua,
                components: c,
                timezone: "UTC",
                ip: pick(s, h.torIps),
                email: `${digest("tor", opts.seed, i).slice(0, 9)}@proton.me`,
              }),
        ),
    });
  }
  // ---- multi-accounting: one browser, account after account ----------------------------------------------------------
  for (let d = 0; d < 4; d++) {
    const s = stream(opts.seed, "multi", d);
    const country = pick(s, COUNTRIES);
    const b = realBrowser(++attacker, tzOf(country));
    const ip = pick(s, residential(country));
    // Sign-ups 20 minutes to 2 hours apart, in order (the fourth account is the fourth in time).
    let at = when("multi", d);
    for (let k = 0; k < 6; k++, at += int(s, 20, 120) * MIN)
      steps.push({
        at,
        run: async (ctx) => {
          const out = await ctx.h.client(ctx.p, {
            action: "signup",
            ...b,
            token: `multi-${opts.seed}-${d}-${k % 2 ? k : 0}`,
            ip,
            email: `trial.${opts.seed}.${d}.${k}@gmail.com`,
          });
          if (out.verdict === "allow" || out.verdict === "restrict") await ctx.h.consume(ctx.p, out.id);
          // The third account on one browser on: a family's shared tablet holds two or three.
          if (k >= 3) ctx.record("multi_accounting", out);
        },
      });
  }
  // ---- bots with their markers, HTTP libraries ---------------------------------------------------------------------------
  for (let i = 0; i < 16; i++) {
    const s = stream(opts.seed, "bot", i);
    const b = realBrowser(++attacker, "UTC");
    steps.push({
      at: when("bot", i),
      run: async (ctx) =>
        ctx.record(
          "bot",
          i % 2
            ? await ctx.h.client(ctx.p, {
                action: "signup",
                ...b,
                automation: { webdriver: true },
                ip: anyResidential(s),
                email: `b${i}.${opts.seed}@gmail.com`,
              })
            : await ctx.h.client(ctx.p, {
                action: "login",
                userAgent: pick(s, ["python-requests/2.31.0", "curl/8.5.0", "Go-http-client/1.1", "Scrapy/2.11 (+https://scrapy.org)"]),
                components: {},
                ip: pick(s, h.byKind.hosting),
                user: target(ctx, s, "b", i),
              }),
        ),
    });
  }
  // ---- spam ------------------------------------------------------------------------------------------------------------
  const SPAM = [
    "Earn $500 a day working from home!!! Click here: www.quick-cash-now.xyz — contact me on WhatsApp +1 415 555 0199",
    "BUY NOW cheap viagra and casino bonus, best price guaranteed!!! http://pills.example.top",
    "Your account has been suspended, verify your account at http://secure-login.example.xyz and pay with gift cards",
    "Crypto giveaway: double your bitcoin, send to wallet, t.me/cryptodouble, limited offer, act now",
  ];
  for (let i = 0; i < 16; i++) {
    const s = stream(opts.seed, "spam", i);
    steps.push({
      at: when("spam", i),
      run: async (ctx) =>
        ctx.record(
          "content_abuse",
          await ctx.h.server(ctx.p, "post", {
            user: `spammer_${opts.seed}_${i}`,
            ip: anyResidential(s),
            content: { text: i % 2 ? SPAM[0] : pick(s, SPAM) },
          }),
        ),
    });
  }
  // ---- account takeover, primed: pages naming the victim first, the login from there hours later --------------------
  // Last in the schedule, so that the attackers above keep their browsers (each draws the next attacker seed).
  for (let i = 0; i < 16; i++) {
    const s = stream(opts.seed, "ato-primed", i);
    const country = pick(s, COUNTRIES);
    const ip = [pick(s, h.torIps), pick(s, h.byKind.vpn), pick(s, h.byKind.hosting), pick(s, residential(country))][i % 4] as string;
    const zone = pick(s, ["Europe/Moscow", "Asia/Shanghai", "America/Chicago", "Africa/Lagos", tzOf(country)]);
    const b = realBrowser(++attacker, zone, `primed-${opts.seed}-${i}`);
    const t0 = when("ato-primed", i);
    let victim: string | undefined;
    steps.push({
      at: t0,
      run: async (ctx) => {
        const known = ctx.known();
        if (!known.length) return;
        victim = pick(s, known);
        for (const action of ["view_item", "access"]) await ctx.h.client(ctx.p, { action, ...b, ip, user: victim });
      },
    });
    steps.push({
      at: t0 + int(s, 6, 30) * HOUR,
      run: async (ctx) => {
        if (!victim) return;
        const out = await ctx.h.client(ctx.p, { action: "login", ...b, ip, user: victim });
        if (out.verdict === "allow") await ctx.h.consume(ctx.p, out.id);
        ctx.record("ato_primed", out, `attacker ${i} (${["tor", "vpn", "hosting", "residential"][i % 4]}, ${zone})`);
      },
    });
  }
  // ---- anti-detect, low and slow: the same runs, one attempt every 20 to 60 minutes (under any hourly limit) ------------
  // Last in the schedule, as the primed takeovers are.
  antiDetectRun("anti_detect_slow", "antidetect-slow", "-slow", [20 * 60, 60 * 60]);
  // ---- distributed stuffing, low and slow: the same runs, one attempt every 30 to 60 minutes ----------------------
  distributedRun("distributed_stuffing_slow", "distributed-slow", "-slow", [30 * 60, 60 * 60]);
  // ---- a sign-up farm on a residential address: a new anti-detect profile per account, every 12 minutes -------------
  // Campaigns: through one home address (0), through one residential /24 (1). The rig takes the zone of the proxy's
  // country (as anti-detect browsers do by default); its language and fonts stay the operator's.
  for (let c = 0; c < 2; c++) {
    const s = stream(opts.seed, "signup-farm", c);
    const country = pick(s, COUNTRIES);
    const operator = pick(
      s,
      LOCALES.map(([l]) => l).filter((l) => l.country !== country),
    );
    const base = realBrowser(++attacker, tzOf(country), undefined, true, operator);
    const home = pick(s, residential(country));
    const t0 = opts.start + int(s, 1, opts.days - 2) * DAY + int(s, 6, 9) * HOUR;
    for (let k = 0; k < 28; k++) {
      const b = antiDetect(s, base);
      const ip = c === 0 ? home : ip24(s, prefixOf(home));
      steps.push({
        at: t0 + k * 12 * MIN + int(s, 0, 90) * 1000,
        run: async (ctx) => {
          const out = await ctx.h.client(ctx.p, {
            action: "signup",
            ...b,
            ip,
            email: `${digest("signup-farm", opts.seed, c, k).slice(0, 10)}@${pick(s, ["gmail.com", "outlook.com", "yahoo.com"])}`,
          });
          if (out.verdict === "allow" || out.verdict === "restrict") await ctx.h.consume(ctx.p, out.id);
          ctx.record("signup_farm", out);
        },
      });
    }
  }
  // ---- one computer, twenty accounts a day, storage cleared, home line and tethered phone alternating ---------------
  for (let d = 0; d < 2; d++) {
    const s = stream(opts.seed, "multi-networks", d);
    const country = pick(s, COUNTRIES);
    const b = realBrowser(++attacker, tzOf(country), undefined, true);
    const home = pick(s, residential(country));
    const carriers = [...(h.carriers.get(country)?.values() ?? [])];
    const carrier = carriers.length ? pick(s, carriers) : residential(country);
    let at = opts.start + int(s, 1, opts.days - 2) * DAY + int(s, 7, 10) * HOUR;
    let onPhone = chance(s, 0.5);
    for (let k = 0; k < 20; k++, at += int(s, 20, 45) * MIN) {
      // Mostly alternating: the phone's connection when the home line is down or slow, and back.
      if (k > 0 && chance(s, 0.75)) onPhone = !onPhone;
      const ip = onPhone ? pick(s, carrier) : home;
      steps.push({
        at,
        run: async (ctx) => {
          const out = await ctx.h.client(ctx.p, {
            action: "signup",
            ...b,
            ip,
            email: `${digest("multi-networks", opts.seed, d, k).slice(0, 8)}.${k}@gmail.com`,
          });
          if (out.verdict === "allow" || out.verdict === "restrict") await ctx.h.consume(ctx.p, out.id);
          // The third account of the day on: a family's shared computer holds two.
          if (k >= 2) ctx.record("multi_accounting_networks", out);
        },
      });
    }
  }
  void r;
  return steps.sort((a, b) => a.at - b.at);
}
