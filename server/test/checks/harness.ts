// The harness of the checks' HTTP tests (server/test/checks/<family>.test.ts, one file per family of
// server/src/checks/families/): every check observed through the real HTTP API on both stores, a case that sets it
// (true, a number above its trivial value, or the expected string) and one that does not. Requests go through
// POST /v3/client/evaluate/:action (the client IP from X-Forwarded-For, a trusted proxy) or POST /v3/evaluate/:action
// (ip and content in the body); the value is read back from the stored evaluation with GET /v3/evaluations/:id. IPs
// are real public addresses whose place and network the shipped data knows; counting checks get private IPs of their
// own so that cases do not count each other. Each family's file starts its own app, and runs alone.
import type { ChecksSnapshot } from "@tessera/sdk/contract";
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CheckName, FAMILIES } from "../../src/checks/index.js";
import { BROWSER_UA, describeStores, fakeComponents, iphoneComponents, startTestApp, type TestApp } from "../helpers.js";
import { strict } from "../strict.js";

// Real public IPs of the shipped data (server/data + the DB-IP lite database), as the scenarios pick them.
export const IP = {
  london: "81.2.69.142", // GB, residential
  london2: "81.2.69.160", // GB, the same city
  tokyo: "126.0.0.1", // JP, residential (SoftBank)
  saoPaulo: "201.6.1.1", // BR, residential
  vpn: "89.187.160.1", // Datacamp (VPN provider ASN)
  proxy: "83.245.108.10", // Key Proxy (proxy ASN)
  tor: "185.220.101.7", // in the shipped Tor exit-node snapshot
  aws: "3.5.1.1", // Amazon (hosting ASN)
  grangemouth: "90.202.235.82", // GB, 554 km from the London address
  newYork: "82.21.91.112", // US, residential
  newYork2: "107.122.34.222", // US, New York, another /24
  sanJose: "64.210.186.238", // US, California, 4,100 km from the New York address
  tmobileFlorida: "172.56.1.1", // T-Mobile USA (a carrier), placed in Florida
  tmobileGeorgia: "172.58.1.1", // T-Mobile USA, another /24, placed in Georgia
  tmobileSpokane: "172.56.200.1", // T-Mobile USA, placed in Washington state
};

export const IPAD_UA =
  "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
export const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
export const BOT_UA = "python-requests/2.31.0";
export const WINDOWS_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
export const LINUX_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
/** What a Chrome on Linux reports over the Windows laptop of the test browsers (no high-entropy hints collected). */
export const ON_LINUX = { platform: "Linux x86_64", userAgentData: undefined };
export const LINUX_HINTS = { "sec-ch-ua": '"Chromium";v="142"', "sec-ch-ua-platform": '"Linux"', "sec-ch-ua-mobile": "?0" };
export const SWIFTSHADER = {
  renderer: "WebKit WebGL",
  rendererUnmasked: "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)",
};
export const DAY = 24 * 3600 * 1000;
export const HOUR = 3600 * 1000;

export type CheckValue = ChecksSnapshot[string];

/** One browser: its FingerprintJS components and its visitor token. */
export interface Browser {
  components: Record<string, { value: unknown }>;
  token: string;
  ua?: string;
}

export interface ClientRequest {
  user?: string;
  /** The backend's signature of `user` (identity verification). */
  user_token?: string;
  email?: string;
  phone?: string;
  /** The client IP (X-Forwarded-For); a fresh private IP when not given, so that per-IP counts stay per case. */
  ip?: string;
  /** Extra X-Forwarded-For hops in front of the client IP, and other headers. */
  headers?: Record<string, string>;
  browser?: Browser;
  /** No components at all (a fingerprint needs some entropy). */
  bare?: boolean;
  ua?: string;
  automation?: Record<string, unknown>;
  timezone?: string;
  /** Window and screen sizes (signals.window). */
  window?: Record<string, number>;
}

/** What a case may do: HTTP calls through the real app, and fresh names so that cases stay independent. */
export interface Harness {
  t: TestApp;
  /** A client evaluation, read back through GET /v3/evaluations/:id. */
  client(action: string, req?: ClientRequest): Promise<Evaluation>;
  /** A backend evaluation, read back through GET /v3/evaluations/:id. */
  server(action: string, body?: Record<string, unknown>): Promise<Evaluation>;
  /** A name not used by any other case. */
  id(prefix: string): string;
  /** A private IP not used by any other case (no geolocation; per-IP counts start at zero). */
  ip(): string;
  /** A private IP on a /24 no other case uses (a network of its own). */
  net(): string;
  /** A browser not used by any other case (its components with `overrides`). */
  browser(ua?: string, overrides?: Record<string, unknown>): Browser;
  /** An iPhone's Safari not used by any other case: the same components as every iPhone of its model. */
  phone(): Browser;
  /** A /24 no other case uses (its first three octets). */
  network(): string;
  /** The backend consumes the evaluation. */
  consume(ev: Evaluation): Promise<void>;
  /** Verifies the user's email or phone through a challenge, with the code read from the development outbox. */
  verify(user: string, channel: "email" | "text"): Promise<void>;
  /** Passes an issued challenge by email, with the code read from the development outbox. */
  pass(challenge: string | undefined, channel?: "email" | "text"): Promise<void>;
}

/** A number strictly above `n`. */
export interface Above {
  above: number;
}
export type Expected = CheckValue | Above | ((ev: Evaluation) => CheckValue);

export interface Case {
  /** What the case does, in words. */
  why: string;
  run: (h: Harness) => Promise<Evaluation>;
  value: Expected;
}

export interface Row {
  check: CheckName;
  set: Case | Case[];
  unset: Case | Case[];
}

export const above = (n: number): Above => ({ above: n });

// ---- scenario helpers the cases share -----------------------------------------------------------------------------------

/** Runs `fn` with the server's clock `ms` ahead (the HTTP path reads Date.now, as the scenario suite's clock does). */
export async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const real = Date.now.bind(Date);
  const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + ms);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

/** A user signs up on a browser, then logs in again there: a confirmed account, no unconfirmed one tried. */
export async function confirmedAgain(h: Harness) {
  const [user, b] = [h.id("u"), h.browser()];
  await h.client("signup", { user, browser: b });
  return h.client("login", { user, browser: b });
}

let londonSeq = 0;
/** Another London address of the shipped data (81.2.69.0/24), so that per-IP counts of other cases stay theirs. */
export const londonIp = () => `81.2.69.${10 + (++londonSeq % 100)}`;

/** A user let in from a browser set to `first` (none: not seen before), then a new browser through a VPN set to `then`. */
export function zoneAfter(first: string | undefined, then: string) {
  return async (h: Harness): Promise<Evaluation> => {
    const user = h.id("u");
    if (first) await trustedLogin(h, user, h.ip(), h.browser(), { timezone: first });
    return h.client("visit", { user, ip: IP.vpn, timezone: then });
  };
}

/**
 * A user let in from a browser set to `first` (none: the browser reports no language), then a new browser set to `then`
 * on another address (FingerprintJS's `languages` component is `[[navigator.language], navigator.languages]`).
 */
export function languageAfter(first: string | undefined, then: string) {
  const languages = (tag: string | undefined) => ({ languages: tag === undefined ? undefined : [[tag], [tag]] });
  return async (h: Harness): Promise<Evaluation> => {
    const user = h.id("u");
    await trustedLogin(h, user, h.ip(), h.browser(undefined, languages(first)));
    return h.client("visit", { user, ip: h.ip(), browser: h.browser(undefined, languages(then)) });
  };
}

/**
 * The user signs in: the backend consumes the login it let in (the password was right), or the user passes its
 * challenge and completes it. Either makes the evaluation, and the browser's device, the user's own (trusted history).
 */
export async function trustedLogin(
  h: Harness,
  user: string,
  ip: string,
  browser = h.browser(),
  extra: Pick<ClientRequest, "timezone"> = {},
): Promise<Evaluation> {
  const first = await h.client("login", { user, browser, ip, email: `${user}@example.com`, ...extra });
  if (first.verdict === "challenge") {
    // The hosted page completes what the code verified: the device joins the account.
    await h.pass(first.challenge?.id);
    const done = await h.t.app.inject({ method: "POST", url: `/v3/challenges/${first.challenge?.id}/complete`, headers: h.t.auth });
    expect(done.statusCode, done.body).toBe(200);
  } else await h.consume(first);
  return first;
}

/** A user logs in from `from`, then at once from `to` with the same browser. */
export async function travel(h: Harness, from: string, to: string): Promise<Evaluation> {
  const [user, b] = [h.id("u"), h.browser()];
  // The first place must be trusted: the user signs in there (every case shares London, whose many unconfirmed accounts
  // from never-seen browsers a default login rule may challenge; the user then passes it).
  await trustedLogin(h, user, from, b);
  return h.client("login", { user, browser: b, ip: to });
}

/** A known user's second visit from the browser of the first. */
export async function onTheUsualBrowser(h: Harness): Promise<Evaluation> {
  const [user, b] = [h.id("u"), h.browser()];
  await h.client("visit", { user, browser: b });
  return h.client("visit", { user, browser: b });
}

/**
 * The user signs in on a browser; then a request names the user with exactly its components on a visitor token of its
 * own (cleared storage, or someone who collected them): the same device, recognised, and not trusted as the user's.
 */
export async function ownComponentsOnNewToken(h: Harness): Promise<Evaluation> {
  const [user, b, ip] = [h.id("u"), h.browser(), h.ip()];
  const first = await trustedLogin(h, user, ip, b);
  const ev = await h.client("visit", { user, browser: { ...b, token: `tok-${h.id("new")}-xxxxxxxx` }, ip });
  expect(ev.device).toBe(first.device);
  return ev;
}

/** A user's first device (a desktop browser they sign in on), then a second one (with the given user agent, else another desktop). */
export async function twoDevices(h: Harness, ua?: string): Promise<Evaluation> {
  const user = h.id("u");
  await trustedLogin(h, user, h.net());
  return h.client("visit", { user, browser: h.browser(ua) });
}

/** An ordinary comment nobody else wrote. */
export const plain = (h: Harness) => `Thanks for the quick delivery, the jacket fits well ${h.id("note")}`;

function assertValue(actual: CheckValue | undefined, expected: Expected, ev: Evaluation): void {
  if (typeof expected === "function") expect(actual).toBe(expected(ev));
  else if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    expect(typeof actual).toBe("number");
    expect(actual as number).toBeGreaterThan(expected.above);
  } else expect(actual).toEqual(expected);
}

const asList = (c: Case | Case[]): Case[] => (Array.isArray(c) ? c : [c]);

// ---- the suite ----------------------------------------------------------------------------------------------------------
/**
 * The cases of one family's checks (checks/families/<family>.ts), each run through the real app on both stores; the
 * rows must cover exactly the family's checks.
 */
export function describeChecks(family: keyof typeof FAMILIES, rows: Row[]): void {
  describeStores(`${family} checks on %s`, (kind) => {
    let t: TestApp;
    let seq = 0;
    let ipSeq = 0;
    let netSeq = 0;

    const read = async (id: string): Promise<Evaluation> => {
      const r = await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth });
      expect(r.statusCode, r.body).toBe(200);
      return strict(Evaluation).parse(r.json());
    };

    const h: Harness = {
      get t() {
        return t;
      },
      id: (prefix) => `${prefix}-${kind}-${++seq}`,
      ip: () => {
        const n = ++ipSeq;
        return `10.${kind === "sqlite" ? 1 : 2}.${Math.floor(n / 250)}.${(n % 250) + 1}`;
      },
      net: () => {
        const n = ++netSeq;
        return `10.${kind === "sqlite" ? 3 : 4}.${n % 250}.${Math.floor(n / 250) + 1}`;
      },
      browser(ua, overrides) {
        const seed = h.id("browser");
        return { components: fakeComponents(seed, overrides), token: `tok-${seed}-xxxxxxxx`, ...(ua ? { ua } : {}) };
      },
      phone() {
        return { components: iphoneComponents(), token: `tok-${h.id("phone")}-xxxxxxxx`, ua: IPHONE_UA };
      },
      network: () => `10.${kind === "sqlite" ? 201 : 202}.${++netSeq}`,
      async consume(ev) {
        const r = await t.app.inject({ method: "POST", url: `/v3/evaluations/${ev.id}/consume`, headers: t.auth });
        expect(r.statusCode, r.body).toBe(200);
      },
      async client(action, req = {}) {
        const browser = req.bare ? undefined : (req.browser ?? h.browser());
        const ua = req.ua ?? browser?.ua ?? BROWSER_UA;
        const signals: Record<string, unknown> = { components: browser?.components ?? {}, url: "https://app.example.com/" };
        if (browser) signals.visitor_token = browser.token;
        if (req.automation) signals.automation = req.automation;
        if (req.timezone) signals.timezone = req.timezone;
        if (req.window) signals.window = req.window;
        const r = await t.app.inject({
          method: "POST",
          url: `/v3/client/evaluate/${action}`,
          headers: { "user-agent": ua, "x-forwarded-for": req.ip ?? h.ip(), ...req.headers },
          payload: {
            client_id: t.clientId,
            ...(req.user ? { user: req.user } : {}),
            ...(req.user_token ? { user_token: req.user_token } : {}),
            ...(req.email ? { email: req.email } : {}),
            ...(req.phone ? { phone: req.phone } : {}),
            signals,
          },
        });
        expect(r.statusCode, r.body).toBe(200);
        return read((r.json() as { evaluation_id: string }).evaluation_id);
      },
      async server(action, body = {}) {
        const r = await t.app.inject({ method: "POST", url: `/v3/evaluate/${action}`, headers: t.auth, payload: body });
        expect(r.statusCode, r.body).toBe(200);
        return read((r.json() as { id: string }).id);
      },
      async verify(user, channel) {
        const ev = await h.client("verify_contact", {
          user,
          email: `${user}@example.com`,
          phone: `+336${10_000_000 + seq}`,
        });
        expect(ev.challenge?.id, "the verify_contact policy issues a challenge").toBeDefined();
        await h.pass(ev.challenge?.id, channel);
      },
      async pass(challenge, channel = "email") {
        const sent = await t.app.inject({ method: "POST", url: `/v3/challenges/${challenge}/send`, headers: t.auth, payload: { channel } });
        expect(sent.statusCode, sent.body).toBe(200);
        const outbox = await t.app.inject({ method: "GET", url: "/v3/dev/outbox", headers: t.auth });
        const message = (outbox.json() as { data: { challenge_id: string; channel: string; body: string }[] }).data.find(
          (m) => m.challenge_id === challenge && m.channel === channel,
        );
        const code = /\b(\d{6})\b/.exec(message?.body ?? "")?.[1];
        expect(code, "a code in the development outbox").toBeDefined();
        const verified = await t.app.inject({
          method: "POST",
          url: `/v3/challenges/${challenge}/verify`,
          headers: t.auth,
          payload: { code },
        });
        expect(verified.statusCode, verified.body).toBe(200);
      },
    };

    beforeAll(async () => {
      // The client IP comes from X-Forwarded-For (a trusted proxy); every injected request shares one socket address,
      // so the client rate limits are lifted. No SMTP_URL: codes go to the development outbox.
      t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000", CHALLENGE_IP_RATE_LIMIT: "100000" });
      const policy = await t.app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: t.auth,
        payload: {
          name: "Verify contact details (test)",
          actions: ["verify_contact"],
          priority: 1000,
          conditions: { all: [] },
          verdict: "challenge",
          challenge: { type: "account_takeover", channels: ["email", "text"] },
        },
      });
      expect(policy.statusCode, policy.body).toBe(201);
      // An account-sharing policy with a limit of its own, on an action of its own: device_limit reads it.
      const sharing = await t.app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: t.auth,
        payload: {
          name: "One device per streaming account (test)",
          actions: ["stream"],
          priority: 10,
          conditions: { check: "devices_over_limit", op: "gt", value: 0 },
          verdict: "challenge",
          challenge: { type: "account_sharing", channels: ["email"], device_limit: 1 },
        },
      });
      expect(sharing.statusCode, sharing.body).toBe(201);
    });
    afterAll(async () => t?.close());

    it("the cases cover every check of the family, and no other", () => {
      expect(rows.map((r) => r.check).sort()).toEqual(FAMILIES[family].map((c) => c.name).sort());
    });

    describe.each(rows)("$check", (row) => {
      for (const c of asList(row.set))
        it(`is set: ${c.why}`, async () => {
          const ev = await c.run(h);
          assertValue(ev.checks?.[row.check], c.value, ev);
        });
      for (const c of asList(row.unset))
        it(`is not set: ${c.why}`, async () => {
          const ev = await c.run(h);
          assertValue(ev.checks?.[row.check], c.value, ev);
        });
    });
  });
}
