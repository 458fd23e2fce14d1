// Every check of the contract's catalogue (SPEC.md 6, issue 4), observed through the real HTTP API on both stores:
// for each check, a case that sets it (true, a number above its trivial value, or the expected string) and one
// that does not. Requests go through POST /v3/client/evaluate/:action (the client IP from X-Forwarded-For, a
// trusted proxy) or POST /v3/evaluate/:action (ip and content in the body); the value is read back from the stored
// evaluation with GET /v3/evaluations/:id. IPs are real public addresses whose place and network the shipped
// data knows; counting checks get private IPs of their own so that cases do not count each other.
import { CHECKS, type CheckName, type ChecksSnapshot, Evaluation } from "@tessera/sdk/contract";
import { userToken } from "@tessera/sdk/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BROWSER_UA, describeStores, fakeComponents, iphoneComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

// Real public IPs of the shipped data (server/data + the DB-IP lite database), as the scenarios pick them.
const IP = {
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

const IPAD_UA =
  "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const BOT_UA = "python-requests/2.31.0";
const WINDOWS_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
const LINUX_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
/** What a Chrome on Linux reports over the Windows laptop of the test browsers (no high-entropy hints collected). */
const ON_LINUX = { platform: "Linux x86_64", userAgentData: undefined };
const LINUX_HINTS = { "sec-ch-ua": '"Chromium";v="142"', "sec-ch-ua-platform": '"Linux"', "sec-ch-ua-mobile": "?0" };
const SWIFTSHADER = {
  renderer: "WebKit WebGL",
  rendererUnmasked: "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)",
};
const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;

type CheckValue = ChecksSnapshot[string];

/** One browser: its FingerprintJS components and its visitor token. */
interface Browser {
  components: Record<string, { value: unknown }>;
  token: string;
  ua?: string;
}

interface ClientRequest {
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
interface Harness {
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
interface Above {
  above: number;
}
type Expected = CheckValue | Above | ((ev: Evaluation) => CheckValue);

interface Case {
  /** What the case does, in words. */
  why: string;
  run: (h: Harness) => Promise<Evaluation>;
  value: Expected;
}

interface Row {
  check: CheckName;
  set: Case | Case[];
  unset: Case | Case[];
}

const above = (n: number): Above => ({ above: n });

// ---- the table: each check's cases in one place ----------------------------------------------------------------------
const TABLE: Row[] = [
  {
    check: "action",
    set: { why: "the action of the request", value: "purchase", run: (h) => h.client("purchase") },
    unset: { why: "another action is another value", value: "visit", run: (h) => h.client("visit") },
  },
  {
    check: "is_new_user",
    set: { why: "a user's first evaluation", value: true, run: (h) => h.client("visit", { user: h.id("u") }) },
    unset: {
      why: "the same user again",
      value: false,
      run: async (h) => {
        const user = h.id("u");
        await h.client("visit", { user });
        return h.client("visit", { user });
      },
    },
  },
  {
    check: "is_new_ip",
    set: [
      {
        why: "a known user from an IP never seen for them",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("visit", { user, browser: b, ip: h.ip() });
          return h.client("visit", { user, browser: b, ip: h.ip() });
        },
      },
      {
        why: "an IP seen only in a challenge nobody passed (an attacker's attempt) stays new",
        value: true,
        run: async (h) => {
          const [user, ip] = [h.id("u"), IP.tokyo];
          await trustedLogin(h, user, londonIp());
          // A never-seen browser in another country: the unfamiliar-login rule challenges it.
          expect((await h.client("login", { user, ip })).verdict).toBe("challenge");
          return h.client("login", { user, ip });
        },
      },
      {
        why: "an IP from which only a browser that never signed in named the user stays new (the client id is public)",
        value: true,
        run: async (h) => {
          const [user, stranger, ip] = [h.id("u"), h.browser(), h.ip()];
          await trustedLogin(h, user, h.ip());
          expect((await h.client("visit", { user, browser: stranger, ip })).verdict).toBe("allow");
          return h.client("visit", { user, browser: stranger, ip });
        },
      },
      {
        why: "an IP of a login let in but never consumed (a wrong password) stays new",
        value: true,
        run: async (h) => {
          // Addresses on /24s of their own: the never-seen browsers of other cases do not count here.
          const [user, stranger, ip] = [h.id("u"), h.browser(), h.net()];
          await trustedLogin(h, user, h.net());
          expect((await h.client("login", { user, browser: stranger, ip })).verdict).toBe("allow");
          return h.client("login", { user, browser: stranger, ip });
        },
      },
      {
        why: "an IP a browser visited from after it was logged out (detached) stays new until it signs in again",
        value: true,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.net()];
          const login = await trustedLogin(h, user, h.net(), b);
          const detached = await h.t.app.inject({
            method: "POST",
            url: `/v3/devices/${login.checks?.device_id}/detach`,
            headers: h.t.auth,
          });
          expect(detached.statusCode, detached.body).toBe(200);
          await h.client("visit", { user, browser: b, ip });
          return h.client("visit", { user, browser: b, ip });
        },
      },
    ],
    unset: [
      {
        why: "an IP a signed-in browser visited from (its pages need no new sign-in)",
        value: false,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.ip()];
          await trustedLogin(h, user, h.ip(), b);
          await h.client("visit", { user, browser: b, ip });
          return h.client("visit", { user, ip });
        },
      },
      {
        why: "an IP a browser with the user id the backend signed came from (identity verification)",
        value: false,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.net()];
          const secret = (await h.t.services.identity.rotate(h.t.project.id, "development")) as string;
          await h.client("visit", { user, ip, user_token: await userToken(secret, user) });
          return h.client("visit", { user, ip });
        },
      },
      {
        why: "an IP the backend evaluated the user from",
        value: false,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.ip()];
          await h.server("visit", { user, ip });
          return h.client("visit", { user, ip });
        },
      },
      {
        why: "a known user from their usual IP",
        value: false,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.ip()];
          await trustedLogin(h, user, ip, b);
          return h.client("visit", { user, browser: b, ip });
        },
      },
      {
        why: "an IP whose challenge the user passed is theirs",
        value: false,
        run: async (h) => {
          const [user, ip] = [h.id("u"), IP.tokyo];
          await trustedLogin(h, user, londonIp());
          const attempt = await h.client("login", { user, ip });
          expect(attempt.verdict).toBe("challenge");
          await h.pass(attempt.challenge?.id);
          return h.client("login", { user, ip });
        },
      },
    ],
  },
  {
    check: "is_new_network",
    set: [
      {
        why: "a known user from another /24",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("visit", { user, browser: b, ip: h.net() });
          return h.client("visit", { user, browser: b, ip: h.net() });
        },
      },
      {
        why: "a network seen only in a challenge nobody passed stays new",
        value: true,
        run: async (h) => {
          const [user, ip] = [h.id("u"), IP.tokyo];
          await trustedLogin(h, user, londonIp());
          expect((await h.client("login", { user, ip })).verdict).toBe("challenge");
          return h.client("login", { user, ip: ip.replace(/\.\d+$/, ".200") });
        },
      },
    ],
    unset: [
      {
        why: "another address of the same /24 (the second exit of one gateway)",
        value: false,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.net()];
          await trustedLogin(h, user, ip, b);
          return h.client("visit", { user, browser: b, ip: ip.replace(/\.\d+$/, ".200") });
        },
      },
      {
        why: "another /24 of the same carrier (a phone hopping across its carrier's pool)",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.tmobileFlorida, b);
          return h.client("visit", { user, browser: b, ip: IP.tmobileGeorgia });
        },
      },
      {
        why: "a backend evaluation without an IP: unknown (null)",
        value: null,
        run: async (h) => {
          const user = h.id("u");
          await h.server("visit", { user, ip: h.net() });
          return h.server("visit", { user });
        },
      },
    ],
  },
  {
    check: "is_new_fingerprint",
    set: [
      {
        why: "a known user on a browser they never used",
        value: true,
        run: (h) => twoDevices(h),
      },
      {
        why: "a known user's browser that sends no components (stripping them does not look familiar)",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b });
          return h.client("login", { user, bare: true });
        },
      },
      {
        why: "a browser that only opened pages naming the user, never signed in (the client id is public)",
        value: true,
        run: (h) => onTheUsualBrowser(h),
      },
      {
        why: "the user's own components on a new visitor token (any page the user visits can collect them)",
        value: true,
        run: (h) => ownComponentsOnNewToken(h),
      },
      {
        why: "a stranger's browser whose login was challenged or denied, trying again",
        value: true,
        run: async (h) => {
          const [user, stranger] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, londonIp());
          expect((await h.client("login", { user, browser: stranger, ip: IP.tokyo })).verdict).not.toBe("allow");
          return h.client("login", { user, browser: stranger, ip: IP.tokyo });
        },
      },
    ],
    unset: [
      {
        why: "a known user on the browser they signed in on",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          return h.client("visit", { user, browser: b });
        },
      },
      {
        why: "a phone the user signed in on (its fingerprint is its model's: the device decides)",
        value: false,
        run: async (h) => {
          const [user, phone] = [h.id("u"), h.phone()];
          await trustedLogin(h, user, h.net(), phone);
          return h.client("visit", { user, browser: phone });
        },
      },
      {
        why: "a backend evaluation naming no browser: unknown (null), not new",
        value: null,
        run: async (h) => {
          const user = h.id("u");
          await h.client("login", { user });
          return h.server("login", { user, ip: h.ip() });
        },
      },
    ],
  },
  {
    check: "is_new_device",
    set: [
      {
        why: "a known user on another machine",
        value: true,
        run: (h) => twoDevices(h),
      },
      {
        why: "a browser that only opened pages naming the user (a page view never attaches a device)",
        value: true,
        run: (h) => onTheUsualBrowser(h),
      },
      {
        why: "the user's own components on a new visitor token: recognised by its fingerprint, not vouched for",
        value: true,
        run: (h) => ownComponentsOnNewToken(h),
      },
    ],
    unset: {
      why: "a known user on the browser they signed in on",
      value: false,
      run: async (h) => {
        const [user, b] = [h.id("u"), h.browser()];
        await trustedLogin(h, user, h.ip(), b);
        return h.client("visit", { user, browser: b });
      },
    },
  },
  {
    check: "user_age_days",
    set: {
      why: "a user first seen three days earlier (the server's clock moved on)",
      value: 3,
      run: async (h) => {
        const user = h.id("u");
        await h.client("visit", { user });
        return later(3 * DAY + 60_000, () => h.client("visit", { user }));
      },
    },
    unset: { why: "a user seen for the first time", value: 0, run: (h) => h.client("visit", { user: h.id("u") }) },
  },
  {
    check: "fingerprint_confidence",
    set: { why: "a browser with enough components", value: 1, run: (h) => h.client("visit", { browser: h.browser() }) },
    unset: { why: "no components: no fingerprint", value: 0, run: (h) => h.client("visit", { bare: true }) },
  },
  {
    check: "fingerprint_user_count",
    set: [
      {
        why: "a second account on the same browser",
        value: 2,
        run: async (h) => {
          const b = h.browser();
          await h.client("signup", { user: h.id("u"), browser: b });
          return h.client("signup", { user: h.id("u"), browser: b });
        },
      },
      {
        why: "a second email-only sign-up (no user id yet) on a browser that cleared its storage",
        value: 2,
        run: async (h) => {
          const b = h.browser();
          await h.client("signup", { email: `${h.id("e")}@example.org`, browser: b });
          return h.client("signup", { email: `${h.id("e")}@example.org`, browser: { ...b, token: `${b.token}-cleared` } });
        },
      },
    ],
    unset: [
      { why: "one account on its own browser", value: 1, run: (h) => h.client("signup", { user: h.id("u"), browser: h.browser() }) },
      {
        why: "two accounts on two phones of one model: a fingerprint every such phone shares is not identifying",
        value: 1,
        run: async (h) => {
          await h.client("signup", { user: h.id("u"), browser: h.phone() });
          return h.client("signup", { user: h.id("u"), browser: h.phone() });
        },
      },
      {
        why: "a provisional user (first seen on a login, never confirmed) on the browser is not an account",
        value: 1,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b });
          return h.client("signup", { user: h.id("u"), browser: b });
        },
      },
    ],
  },
  {
    check: "fingerprint_accounts_tried",
    set: [
      {
        why: "a third account logged into from one browser within the hour, known or not",
        value: 3,
        run: async (h) => {
          const [b, known] = [h.browser(), h.id("u")];
          await h.client("signup", { user: known, browser: h.browser() });
          await h.client("login", { user: h.id("u"), browser: b });
          await h.client("login", { user: known, browser: b });
          return h.client("login", { user: h.id("u"), browser: b });
        },
      },
    ],
    unset: [
      {
        why: "one account logging in again and again is one account",
        value: 1,
        run: async (h) => {
          const [b, user] = [h.browser(), h.id("u")];
          await h.client("login", { user, browser: b });
          await h.client("login", { user, browser: b });
          return h.client("login", { user, browser: b });
        },
      },
      {
        why: "phones of one model: their shared fingerprint names no browser",
        value: 0,
        run: async (h) => {
          await h.client("login", { user: h.id("u"), browser: h.phone() });
          return h.client("login", { user: h.id("u"), browser: h.phone() });
        },
      },
      {
        why: "accounts logged into more than an hour before are not counted",
        value: 1,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b });
          await h.client("login", { user: h.id("u"), browser: b });
          return later(61 * 60_000, () => h.client("login", { user: h.id("u"), browser: b }));
        },
      },
    ],
  },
  {
    check: "fingerprint_ip_user_count",
    set: [
      {
        why: "a third account from a phone of one model on one address (a phone that cleared its storage between accounts)",
        value: 3,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
          await h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
          return h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
        },
      },
      {
        why: "an identifying browser counts the same way: a second account on it from one address",
        value: 2,
        run: async (h) => {
          const [b, ip] = [h.browser(), h.ip()];
          await h.client("signup", { user: h.id("u"), browser: b, ip });
          return h.client("signup", { user: h.id("u"), browser: { ...b, token: `${b.token}-cleared` }, ip });
        },
      },
    ],
    unset: [
      {
        why: "phones of one model on two addresses: strangers' phones, not one phone",
        value: 1,
        run: async (h) => {
          await h.client("signup", { user: h.id("u"), browser: h.phone(), ip: h.ip() });
          return h.client("signup", { user: h.id("u"), browser: h.phone(), ip: h.ip() });
        },
      },
      {
        why: "another browser (other components) on the same address",
        value: 1,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { user: h.id("u"), browser: h.browser(), ip });
          return h.client("signup", { user: h.id("u"), browser: h.browser(), ip });
        },
      },
      {
        why: "a provisional user (a login on an unknown account) from the phone is not an account",
        value: 1,
        run: async (h) => {
          const ip = h.ip();
          await h.client("login", { user: h.id("u"), browser: h.phone(), ip });
          return h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
        },
      },
    ],
  },
  {
    check: "device_user_count",
    set: {
      why: "a second account with the same visitor token (the browser's stored id)",
      value: 2,
      run: async (h) => {
        const b = h.browser();
        await h.client("signup", { user: h.id("u"), browser: b });
        return h.client("signup", { user: h.id("u"), browser: { ...h.browser(), token: b.token } });
      },
    },
    unset: [
      { why: "one account with its own token", value: 1, run: (h) => h.client("signup", { user: h.id("u"), browser: h.browser() }) },
      {
        why: "a provisional user with the token is not an account",
        value: 1,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b });
          return h.client("signup", { user: h.id("u"), browser: b });
        },
      },
    ],
  },
  {
    check: "is_provisional_user",
    set: { why: "a user first seen on a login", value: true, run: (h) => h.client("login", { user: h.id("u") }) },
    unset: [
      { why: "a user first seen on a sign-up", value: false, run: (h) => h.client("signup", { user: h.id("u") }) },
      {
        why: "a user whose login the backend consumed",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.consume(await h.client("login", { user, browser: b }));
          return h.client("login", { user, browser: b });
        },
      },
    ],
  },
  {
    check: "device_provisional_attempts",
    set: {
      why: "one browser's third login on unconfirmed users within the hour",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: b });
        await h.client("login", { user: h.id("u"), browser: b });
        return h.client("login", { user: h.id("u"), browser: b });
      },
    },
    unset: { why: "a confirmed account logging in again on its browser", value: 0, run: (h) => confirmedAgain(h) },
  },
  {
    check: "fingerprint_provisional_attempts",
    set: {
      why: "three logins on unconfirmed users from one browser clearing its storage between them",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-1` } });
        await h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-2` } });
        return h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-3` } });
      },
    },
    unset: [
      { why: "a sign-up on a new browser", value: 0, run: (h) => h.client("signup", { user: h.id("u"), browser: h.browser() }) },
      {
        why: "one unconfirmed account retried three times from one browser on three networks is one account",
        value: 1,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b, ip: h.net() });
          await h.client("login", { user, browser: b, ip: h.net() });
          return h.client("login", { user, browser: b, ip: h.net() });
        },
      },
    ],
  },
  {
    check: "ip_provisional_attempts",
    set: {
      why: "three logins on unconfirmed users from three browsers at one IP",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        await h.client("login", { user: h.id("u"), ip });
        return h.client("login", { user: h.id("u"), ip });
      },
    },
    unset: { why: "a sign-up from its own IP", value: 0, run: (h) => h.client("signup", { user: h.id("u"), ip: h.ip() }) },
  },
  {
    check: "network_provisional_attempts",
    set: {
      why: "three logins on unconfirmed users from three addresses of one /24",
      value: 3,
      run: async (h) => {
        const net = h.network();
        await h.client("login", { user: h.id("u"), ip: `${net}.11` });
        await h.client("login", { user: h.id("u"), ip: `${net}.12` });
        return h.client("login", { user: h.id("u"), ip: `${net}.13` });
      },
    },
    unset: {
      why: "a sign-up from a network of its own",
      value: 0,
      run: (h) => h.client("signup", { user: h.id("u"), ip: `${h.network()}.1` }),
    },
  },
  {
    check: "device_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from one browser on three networks, two hours apart (each hour holds one)",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: b, ip: h.net() });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), browser: b, ip: h.net() }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), browser: b, ip: h.net() }));
      },
    },
    unset: {
      why: "a login on an unconfirmed user a day after another from its browser counts itself alone",
      value: 1,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: b, ip: h.net() });
        return later(DAY + HOUR, () => h.client("login", { user: h.id("u"), browser: b, ip: h.net() }));
      },
    },
  },
  {
    check: "fingerprint_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from one browser clearing its storage between them, two hours apart",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-1` }, ip: h.net() });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-2` }, ip: h.net() }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-3` }, ip: h.net() }));
      },
    },
    unset: { why: "a confirmed account logging in again on its browser", value: 0, run: (h) => confirmedAgain(h) },
  },
  {
    check: "ip_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from one IP, two hours apart (each hour holds one)",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), ip }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), ip }));
      },
    },
    unset: {
      why: "a login on an unconfirmed user a day after another from its IP counts itself alone",
      value: 1,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        return later(DAY + HOUR, () => h.client("login", { user: h.id("u"), ip }));
      },
    },
  },
  {
    check: "network_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from three addresses of one /24, two hours apart",
      value: 3,
      run: async (h) => {
        const net = h.network();
        await h.client("login", { user: h.id("u"), ip: `${net}.11` });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), ip: `${net}.12` }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), ip: `${net}.13` }));
      },
    },
    unset: {
      why: "a sign-up from a network of its own",
      value: 0,
      run: (h) => h.client("signup", { user: h.id("u"), ip: `${h.network()}.1` }),
    },
  },
  {
    check: "ip_user_count",
    set: {
      why: "two accounts from one IP within the hour",
      value: 2,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        return h.client("login", { user: h.id("u"), ip });
      },
    },
    unset: { why: "one account on its IP", value: 1, run: (h) => h.client("login", { user: h.id("u"), ip: h.ip() }) },
  },
  {
    check: "ip_is_vpn",
    set: { why: "a VPN provider's network", value: true, run: (h) => h.client("visit", { ip: IP.vpn }) },
    unset: [
      {
        why: "a residential IP with a matching time zone",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/London" }),
      },
      {
        why: "a traveller whose laptop keeps its home zone (Paris time from Tokyo) is not on a VPN",
        value: false,
        run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Europe/Paris" }),
      },
    ],
  },
  {
    check: "ip_is_proxy",
    set: [
      { why: "a proxy provider's network", value: true, run: (h) => h.client("visit", { ip: IP.proxy }) },
      {
        why: "a forward proxy that announces itself (X-Proxy-ID)",
        value: true,
        run: (h) => h.client("visit", { ip: IP.london, headers: { "x-proxy-id": "1738295" } }),
      },
    ],
    unset: [
      { why: "a residential IP, direct", value: false, run: (h) => h.client("visit", { ip: IP.london }) },
      {
        why: "a Via header, which load balancers add to all traffic",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, headers: { via: "1.1 google" } }),
      },
      {
        why: "a long forwarding chain (CDN, load balancer and router hops)",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, headers: { "x-forwarded-for": `${IP.london}, 198.51.100.7, 198.51.100.8` } }),
      },
    ],
  },
  {
    check: "ip_is_tor",
    set: { why: "a Tor exit node", value: true, run: (h) => h.client("visit", { ip: IP.tor }) },
    unset: { why: "a residential IP", value: false, run: (h) => h.client("visit", { ip: IP.london }) },
  },
  {
    check: "ip_is_hosting",
    set: { why: "a datacenter (AWS)", value: true, run: (h) => h.client("visit", { ip: IP.aws }) },
    unset: { why: "a residential IP", value: false, run: (h) => h.client("visit", { ip: IP.london }) },
  },
  {
    check: "ip_is_anonymous",
    set: [
      { why: "Tor", value: true, run: (h) => h.client("visit", { ip: IP.tor }) },
      { why: "a VPN", value: true, run: (h) => h.client("visit", { ip: IP.vpn }) },
      { why: "a proxy", value: true, run: (h) => h.client("visit", { ip: IP.proxy }) },
    ],
    unset: [
      { why: "a residential IP", value: false, run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/London" }) },
      { why: "a datacenter is not anonymising by itself", value: false, run: (h) => h.server("visit", { ip: IP.aws }) },
      {
        why: "a browser time zone far from the IP (a traveller) is not anonymising",
        value: false,
        run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Europe/Paris" }),
      },
      {
        why: "a proxy that announces itself in the headers is transparent, not anonymising",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, headers: { "x-proxy-id": "1738295" } }),
      },
    ],
  },
  {
    check: "ip_country",
    set: { why: "a Japanese IP", value: "JP", run: (h) => h.client("visit", { ip: IP.tokyo }) },
    unset: { why: "a private IP has no country", value: null, run: (h) => h.client("visit", { ip: h.ip() }) },
  },
  {
    check: "is_new_country",
    set: {
      why: "a country the user was never let in from",
      value: true,
      run: async (h) => {
        const [user, b] = [h.id("u"), h.browser()];
        await trustedLogin(h, user, IP.newYork, b);
        return h.client("visit", { user, browser: b, ip: IP.tokyo });
      },
    },
    unset: [
      {
        why: "the country of the user's trusted evaluations",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.london2, b);
          return h.client("visit", { user, browser: b, ip: IP.grangemouth });
        },
      },
      {
        why: "a VPN exit is no country the user is in",
        value: null,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b, ip: IP.london2 });
          return h.client("visit", { user, browser: b, ip: IP.vpn });
        },
      },
      {
        why: "no trusted country to compare with (private IPs have none)",
        value: null,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b, ip: h.ip() });
          return h.client("visit", { user, browser: b, ip: IP.tokyo });
        },
      },
    ],
  },
  {
    check: "is_new_provider",
    set: {
      why: "a VPN provider the user never came in through",
      value: true,
      run: async (h) => {
        const [user, b] = [h.id("u"), h.browser()];
        await h.client("visit", { user, browser: b, ip: h.ip() });
        return h.client("visit", { user, browser: b, ip: IP.vpn });
      },
    },
    unset: [
      {
        why: "another exit of a cloud provider the user was let in through",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.aws, b);
          return h.client("visit", { user, browser: b, ip: "3.5.1.200" });
        },
      },
      { why: "a network that is no provider's", value: null, run: (h) => h.client("visit", { user: h.id("u"), ip: IP.london2 }) },
    ],
  },
  {
    check: "is_new_timezone",
    set: { why: "a time zone no browser the user was let in from was set to", value: true, run: zoneAfter("Europe/London", "Asia/Tokyo") },
    unset: [
      {
        why: "the zone of a browser the user was let in from, through a VPN on another browser (an alias names the same zone)",
        value: false,
        run: zoneAfter("Asia/Kolkata", "Asia/Calcutta"),
      },
      { why: "UTC names no place (privacy browsers and Tor report it for everyone)", value: null, run: zoneAfter("UTC", "UTC") },
      { why: "no trusted evaluation with a zone to compare with", value: null, run: zoneAfter(undefined, "Europe/London") },
    ],
  },
  {
    check: "is_new_language",
    set: [
      { why: "a language no browser the user was let in from was set to", value: true, run: languageAfter("en-GB", "es-ES") },
      {
        why: "a language only a stranger's page naming the user was set to (nobody let it in): the client id is public",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          const japanese = { languages: [["ja-JP"], ["ja-JP"]] };
          await trustedLogin(h, user, h.ip(), h.browser(undefined, { languages: [["en-GB"], ["en-GB"]] }));
          await h.client("visit", { user, ip: h.ip(), browser: h.browser(undefined, japanese) });
          return h.client("visit", { user, ip: h.ip(), browser: h.browser(undefined, japanese) });
        },
      },
    ],
    unset: [
      {
        why: "the language of a browser the user was let in from, on another browser (tags are compared canonical)",
        value: false,
        run: languageAfter("en-GB", "EN-gb"),
      },
      { why: "en-US is not en-GB: the region counts", value: true, run: languageAfter("en-GB", "en-US") },
      { why: "a value no browser reports is no language", value: null, run: languageAfter("en-GB", "<script>") },
      { why: "no trusted evaluation with a language to compare with", value: null, run: languageAfter(undefined, "en-GB") },
    ],
  },
  {
    check: "ip_new_fingerprints",
    set: {
      why: "a third never-seen browser from one IP within the hour",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        await h.client("visit", { ip });
        return h.client("visit", { ip });
      },
    },
    unset: [
      {
        why: "a browser already seen elsewhere is not new here",
        value: 0,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: h.ip() });
          return h.client("visit", { browser: b, ip: h.ip() });
        },
      },
      {
        why: "the same browser again counts once",
        value: 1,
        run: async (h) => {
          const [b, ip] = [h.browser(), h.ip()];
          await h.client("visit", { browser: b, ip });
          return h.client("visit", { browser: b, ip });
        },
      },
    ],
  },
  {
    check: "network_new_fingerprints",
    set: {
      why: "never-seen browsers from two addresses of one /24",
      value: 2,
      run: async (h) => {
        const net = h.network();
        await h.client("visit", { ip: `${net}.1` });
        return h.client("visit", { ip: `${net}.2` });
      },
    },
    unset: {
      why: "a browser already seen elsewhere, on a /24 of its own",
      value: 0,
      run: async (h) => {
        const b = h.browser();
        await h.client("visit", { browser: b, ip: h.ip() });
        return h.client("visit", { browser: b, ip: `${h.network()}.1` });
      },
    },
  },
  {
    check: "provider_new_fingerprints",
    set: { why: "a never-seen browser through a cloud provider", value: above(0), run: (h) => h.client("visit", { ip: IP.aws }) },
    unset: { why: "a never-seen browser on a network that is no provider's", value: 0, run: (h) => h.client("visit", { ip: h.net() }) },
  },
  {
    check: "ip_new_fingerprints_day",
    set: {
      why: "a third never-seen browser from one IP over five hours (each hour holds one)",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        await later(2.5 * HOUR, () => h.client("visit", { ip }));
        return later(5 * HOUR, () => h.client("visit", { ip }));
      },
    },
    unset: {
      why: "a never-seen browser a day after another from its IP counts itself alone",
      value: 1,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        return later(DAY + HOUR, () => h.client("visit", { ip }));
      },
    },
  },
  {
    check: "network_new_fingerprints_day",
    set: {
      why: "never-seen browsers from two addresses of one /24, three hours apart",
      value: 2,
      run: async (h) => {
        const net = h.network();
        await h.client("visit", { ip: `${net}.1` });
        return later(3 * HOUR, () => h.client("visit", { ip: `${net}.2` }));
      },
    },
    unset: {
      why: "a browser already seen elsewhere, on a /24 of its own",
      value: 0,
      run: async (h) => {
        const b = h.browser();
        await h.client("visit", { browser: b, ip: h.ip() });
        return h.client("visit", { browser: b, ip: `${h.network()}.1` });
      },
    },
  },
  {
    check: "provider_new_fingerprints_day",
    set: {
      why: "never-seen browsers through one cloud provider, hours apart",
      value: above(1),
      run: async (h) => {
        await h.client("visit", { ip: IP.aws });
        return later(3 * HOUR, () => h.client("visit", { ip: IP.aws }));
      },
    },
    unset: { why: "a never-seen browser on a network that is no provider's", value: 0, run: (h) => h.client("visit", { ip: h.net() }) },
  },
  {
    check: "impossible_travel",
    set: [
      {
        why: "London, then Tokyo a moment later",
        value: true,
        run: (h) => travel(h, IP.london, IP.tokyo),
      },
      {
        why: "London, then a carrier exit, then Tokyo: measured from the last place the user really was",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          // Trusted in London (see travel(): a shared-London login rule may challenge it, and the user passes).
          await trustedLogin(h, user, IP.london, b);
          await h.client("login", { user, browser: b, ip: IP.tmobileFlorida });
          return h.client("login", { user, browser: b, ip: IP.tokyo });
        },
      },
    ],
    unset: [
      { why: "London, then another London IP", value: false, run: (h) => travel(h, IP.london, IP.london2) },
      {
        why: "London, then Grangemouth (554 km) a minute later: within the two places' accuracy",
        value: false,
        run: (h) => travel(h, IP.london, IP.grangemouth),
      },
      {
        why: "New York, then a carrier exit placed 3,500 km away (carrier-grade NAT says nothing about the place)",
        value: false,
        run: (h) => travel(h, IP.newYork, IP.tmobileSpokane),
      },
      {
        why: "London, then a VPN exit (a chosen server is no place; that is ip_is_anonymous)",
        value: false,
        run: (h) => travel(h, IP.london, IP.vpn),
      },
      {
        why: "after the user passed a challenge for a jump (Tokyo, then London), the next login from London is not that jump again",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.tokyo, b);
          const jump = await h.client("login", { user, browser: b, ip: IP.london });
          expect(jump.checks?.impossible_travel).toBe(true);
          await h.pass(jump.challenge?.id);
          return h.client("login", { user, browser: b, ip: IP.london2 });
        },
      },
      {
        why: "the owner at home after a stranger's attempt from Tokyo that nobody passed",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.london, b);
          // Challenged, or denied once the cases before have made Tokyo a crowded address: nobody passed it.
          const attempt = await h.client("login", { user, ip: IP.tokyo });
          expect(attempt.verdict).not.toBe("allow");
          return h.client("login", { user, browser: b, ip: IP.london2 });
        },
      },
    ],
  },
  {
    check: "travel_speed_kmh",
    set: { why: "London, then São Paulo a moment later", value: above(1000), run: (h) => travel(h, IP.london, IP.saoPaulo) },
    unset: { why: "a user's first located evaluation", value: 0, run: (h) => h.client("login", { user: h.id("u"), ip: IP.london }) },
  },
  {
    check: "browser_impossible_travel",
    set: [
      {
        why: "one browser names an account never met in London, then another in Tokyo a minute later",
        value: true,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b, ip: IP.london });
          return h.client("login", { user: h.id("u"), browser: b, ip: IP.tokyo });
        },
      },
      {
        why: "one visitor token in London, then in São Paulo a minute later under a fingerprint drawn anew",
        value: true,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.london });
          return h.client("visit", { browser: { ...h.browser(), token: b.token }, ip: IP.saoPaulo });
        },
      },
    ],
    unset: [
      {
        why: "one browser in London, then in Tokyo 15 hours later (a flight)",
        value: false,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.london });
          return later(15 * HOUR, () => h.client("visit", { browser: b, ip: IP.tokyo }));
        },
      },
      {
        why: "two iPhones of one model, each with its own token, in London and in Tokyo (a model's fingerprint is everyone's)",
        value: false,
        run: async (h) => {
          await h.client("visit", { browser: h.phone(), ip: IP.london });
          return h.client("visit", { browser: h.phone(), ip: IP.tokyo });
        },
      },
      {
        why: "one browser in London, then through a VPN exit (a chosen server is no place)",
        value: false,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.london });
          return h.client("visit", { browser: b, ip: IP.vpn });
        },
      },
      {
        why: "one browser in Tokyo, then in London a minute later after a visit from another London address",
        value: false,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.tokyo });
          await later(15 * HOUR, () => h.client("visit", { browser: b, ip: IP.london }));
          return later(15 * HOUR + 60_000, () => h.client("visit", { browser: b, ip: IP.london2 }));
        },
      },
    ],
  },
  {
    check: "distance_from_trusted_km",
    set: [
      {
        why: "New York, then San Jose: 4,100 km less both accuracy radii",
        value: above(3500),
        run: (h) => travel(h, IP.newYork, IP.sanJose),
      },
      {
        why: "a place seen only on an attempt nobody passed is no trusted place",
        value: above(3500),
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.newYork, b);
          const attempt = await h.client("login", { user, ip: IP.sanJose, timezone: "Asia/Shanghai" });
          expect(attempt.verdict).toBe("challenge");
          return h.client("login", { user, ip: IP.sanJose });
        },
      },
    ],
    unset: [
      { why: "a user's first located evaluation", value: null, run: (h) => h.client("login", { user: h.id("u"), ip: IP.london }) },
      {
        why: "New York, then another New York network: within the accuracy radii",
        value: 0,
        run: (h) => travel(h, IP.newYork, IP.newYork2),
      },
      {
        why: "the nearest trusted place counts: New York, then San Jose, then New York again on a new browser",
        value: 0,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.newYork, b);
          // Another browser: a newer challenge on the same browser would supersede the first one's, still open.
          const far = await trustedLogin(h, user, IP.sanJose);
          expect(far.checks?.distance_from_trusted_km).toBeGreaterThan(3500);
          return h.client("login", { user, ip: IP.newYork2 });
        },
      },
      { why: "a VPN exit places no one", value: null, run: (h) => travel(h, IP.newYork, IP.vpn) },
      { why: "a carrier exit places no one", value: null, run: (h) => travel(h, IP.newYork, IP.tmobileSpokane) },
      {
        why: "after only a carrier exit in the country (placed in Florida): no place there to measure from",
        value: null,
        run: (h) => travel(h, IP.tmobileFlorida, IP.newYork),
      },
      {
        why: "after only places in another country (a trip's say nothing about where at home the user lives)",
        value: null,
        run: (h) => travel(h, IP.london, IP.newYork),
      },
    ],
  },
  {
    check: "concurrent_sessions",
    set: {
      why: "a second computer of the user, active at once from another network",
      value: 1,
      run: async (h) => {
        const user = h.id("u");
        await trustedLogin(h, user, h.net());
        return h.client("access", { user, browser: h.browser(), ip: h.net() });
      },
    },
    unset: [
      {
        why: "a second computer of the user on the same IP",
        value: 0,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.ip()];
          await trustedLogin(h, user, ip);
          return h.client("access", { user, browser: h.browser(), ip });
        },
      },
      {
        why: "a second computer on another address of the same /24 (one office, two gateway exits)",
        value: 0,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.net()];
          await trustedLogin(h, user, ip);
          return h.client("access", { user, browser: h.browser(), ip: ip.replace(/\.\d+$/, ".200") });
        },
      },
    ],
  },
  {
    check: "session_impossible_travel",
    set: [
      {
        why: "the user's computer in use in London while a phone logs in from Tokyo",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          // An address of its own in London: the shared one is crowded with the other cases' logins (denied there).
          await trustedLogin(h, user, londonIp());
          return h.client("access", { user, browser: h.browser(IPHONE_UA), ip: IP.tokyo });
        },
      },
      {
        why: "London and Grangemouth at once: 354 km beyond both radii, too far for one person within the quarter hour",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          // An address of its own in London: the shared one is crowded with the other cases' logins (denied there).
          await trustedLogin(h, user, londonIp());
          return h.client("access", { user, browser: h.browser(), ip: IP.grangemouth });
        },
      },
    ],
    unset: [
      {
        why: "the user's laptop at home and their phone on its carrier at once (a carrier exit places nobody)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, IP.newYork);
          return h.client("access", { user, browser: h.browser(IPHONE_UA), ip: IP.tmobileSpokane });
        },
      },
      {
        why: "a device last used in London sixteen hours before Tokyo (a flight's pace, no longer in use)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, IP.london);
          return later(16 * 3600_000, () => h.client("access", { user, browser: h.browser(IPHONE_UA), ip: IP.tokyo }));
        },
      },
      {
        why: "a stranger's browser naming the user from Tokyo is no session of theirs (the client id is public)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, londonIp());
          // Let in (a page no policy watches), so its device joins the account and is in use in Tokyo.
          expect((await h.client("visit", { user, browser: h.browser(), ip: IP.tokyo })).verdict).toBe("allow");
          return h.client("access", { user, browser: h.browser(IPHONE_UA), ip: londonIp() });
        },
      },
    ],
  },
  {
    check: "device_limit",
    set: {
      why: "the device limit of the account-sharing policy for the action (1 on stream)",
      value: 1,
      run: (h) => h.client("stream", { user: h.id("u") }),
    },
    unset: {
      why: "no account-sharing policy for the action: the project's default, 3",
      value: 3,
      run: (h) => h.client("visit", { user: h.id("u") }),
    },
  },
  {
    check: "devices_over_limit",
    set: {
      why: "a second computer where the sharing policy allows one",
      value: 1,
      run: async (h) => {
        const user = h.id("u");
        await trustedLogin(h, user, h.net());
        return h.client("stream", { user, browser: h.browser() });
      },
    },
    unset: {
      why: "a second computer where the limit is the default 3",
      value: 0,
      run: (h) => twoDevices(h),
    },
  },
  {
    check: "has_high_velocity",
    set: {
      why: "a user's 61st evaluation within the hour (60 is beyond a person's pace)",
      value: true,
      run: async (h) => {
        const user = h.id("u");
        for (let i = 0; i < 60; i++)
          await h.t.app.inject({ method: "POST", url: "/v3/evaluate/visit", headers: h.t.auth, payload: { user } });
        return h.server("visit", { user });
      },
    },
    unset: {
      why: "a few evaluations of a user",
      value: false,
      run: async (h) => {
        const user = h.id("u");
        for (let i = 0; i < 3; i++) await h.server("visit", { user });
        return h.server("visit", { user });
      },
    },
  },
  {
    check: "event_count",
    set: {
      why: "a user's third evaluation in the window",
      value: 3,
      run: async (h) => {
        const user = h.id("u");
        await h.server("visit", { user });
        await h.server("visit", { user });
        return h.server("visit", { user });
      },
    },
    unset: { why: "a user's first evaluation (itself only)", value: 1, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "ip_event_count",
    set: {
      why: "the third evaluation from one IP in the window",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        await h.client("visit", { ip });
        return h.client("visit", { ip });
      },
    },
    unset: { why: "the first evaluation from an IP (itself only)", value: 1, run: (h) => h.client("visit", { ip: h.ip() }) },
  },
  {
    check: "fingerprint_event_count",
    set: {
      why: "the third evaluation of one browser in the window",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("visit", { browser: b });
        await h.client("visit", { browser: b });
        return h.client("visit", { browser: b });
      },
    },
    unset: { why: "a browser's first evaluation (itself only)", value: 1, run: (h) => h.client("visit", { browser: h.browser() }) },
  },
  {
    check: "device_count",
    set: [
      { why: "a user with a computer and a tablet", value: 2, run: (h) => twoDevices(h, IPAD_UA) },
      {
        why: "a computer the user keeps coming back to still counts hours later",
        value: 2,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await later(2 * 3600_000, () => h.client("visit", { user, browser: b }));
          return later(5 * 3600_000, () => h.client("visit", { user, browser: h.browser() }));
        },
      },
      {
        why: "two computers used in turn over days both count",
        value: 2,
        run: async (h) => {
          const [user, b, c] = [h.id("u"), h.browser(), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await later(2 * 3600_000, () => h.client("visit", { user, browser: b }));
          await later(24 * 3600_000, () => trustedLogin(h, user, h.net(), c));
          return later(24.5 * 3600_000, () => h.client("visit", { user, browser: b }));
        },
      },
    ],
    unset: [
      {
        why: "a browser that lost its storage and came back as a new device a day later counts once",
        value: 1,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await later(2 * 3600_000, () => h.client("visit", { user, browser: b }));
          const again = { ...h.browser(), token: `${b.token}-cleared` };
          await later(24 * 3600_000, () => h.client("visit", { user, browser: again }));
          return later(25 * 3600_000, () => h.client("visit", { user, browser: again }));
        },
      },
      { why: "a user with one device", value: 1, run: (h) => h.client("visit", { user: h.id("u") }) },
      {
        why: "a stranger's browser that only named the user on a page is none of the user's devices (the client id is public)",
        value: 1,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await h.client("visit", { user, ip: h.net() });
          return h.client("visit", { user, browser: b });
        },
      },
      {
        why: "a private window used once, hours ago, no longer counts",
        value: 1,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, browser: h.phone() });
          return later(2 * 3600_000, () => h.client("visit", { user, browser: h.browser() }));
        },
      },
    ],
  },
  {
    check: "computer_device_count",
    set: { why: "a user with two computers", value: 2, run: (h) => twoDevices(h, BROWSER_UA) },
    unset: { why: "a user with a phone only", value: 0, run: (h) => h.client("visit", { user: h.id("u"), ua: IPHONE_UA }) },
  },
  {
    check: "tablet_device_count",
    set: { why: "a user with a computer and a tablet", value: 1, run: (h) => twoDevices(h, IPAD_UA) },
    unset: { why: "a user with a computer only", value: 0, run: (h) => h.client("visit", { user: h.id("u") }) },
  },
  {
    check: "mobile_device_count",
    set: { why: "a user with a computer and a phone", value: 1, run: (h) => twoDevices(h, IPHONE_UA) },
    unset: { why: "a user with a computer only", value: 0, run: (h) => h.client("visit", { user: h.id("u") }) },
  },
  {
    check: "email_is_disposable",
    set: { why: "a throwaway address", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@mailinator.com" }) },
    unset: { why: "a webmail address", value: false, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@gmail.com" }) },
  },
  {
    check: "email_is_webmail",
    set: { why: "a public webmail address", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@outlook.com" }) },
    unset: { why: "a company address", value: false, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@acme-corp.com" }) },
  },
  {
    check: "email_is_invalid",
    set: [
      // Not an address at all is a 400 (SPEC.md 12); these are RFC 5322 addresses no mail provider hands out.
      { why: "a top-level domain with a digit", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "a@example.c0m" }) },
      { why: "a label starting with a hyphen", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "a@-x.example.com" }) },
    ],
    unset: { why: "a well-formed address", value: false, run: (h) => h.server("visit", { user: h.id("u"), email: "a.b@example.com" }) },
  },
  {
    check: "is_email_verified",
    set: {
      why: "a user who entered the code mailed to them",
      value: true,
      run: async (h) => {
        const user = h.id("u");
        await h.verify(user, "email");
        return h.server("visit", { user });
      },
    },
    unset: {
      why: "a user with an email never verified",
      value: false,
      run: (h) => h.server("visit", { user: h.id("u"), email: "unverified@example.com" }),
    },
  },
  {
    check: "contact_mismatch",
    set: [
      {
        why: "a client login claiming another email than the stored one",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, email: `${user}@example.com` });
          return h.client("login", { user, email: "someone.else@example.net" });
        },
      },
      {
        why: "a client login claiming another phone than the stored one",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, phone: "+33612345678" });
          return h.client("login", { user, phone: "+33698765432" });
        },
      },
    ],
    unset: [
      {
        why: "the stored email again, in other capitals",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, email: `${user}@example.com` });
          return h.client("login", { user, email: `${user.toUpperCase()}@EXAMPLE.COM` });
        },
      },
      {
        why: "a backend evaluation with a new email (the backend's contacts are the user's)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, email: `${user}@example.com` });
          return h.server("login", { user, email: "new.address@example.net" });
        },
      },
    ],
  },
  {
    check: "identity_verified",
    set: [
      {
        why: "a client login with the user_token the backend signed for the user",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          const secret = (await h.t.services.identity.rotate(h.t.project.id, "development")) as string;
          return h.client("login", { user, user_token: await userToken(secret, user) });
        },
      },
      { why: "a backend evaluation naming the user", value: true, run: (h) => h.server("login", { user: h.id("u") }) },
    ],
    unset: [
      { why: "a client login without a token", value: false, run: (h) => h.client("login", { user: h.id("u") }) },
      {
        why: "a client login with a token signed for another user",
        value: false,
        run: async (h) => {
          const secret = (await h.t.services.identity.rotate(h.t.project.id, "development")) as string;
          return h.client("login", { user: h.id("u"), user_token: await userToken(secret, "someone-else") });
        },
      },
    ],
  },
  {
    check: "is_phone_verified",
    set: {
      why: "a user who entered the code texted to them",
      value: true,
      run: async (h) => {
        const user = h.id("u");
        await h.verify(user, "text");
        return h.server("visit", { user });
      },
    },
    unset: {
      why: "a user who verified their email but not their phone",
      value: false,
      run: async (h) => {
        const user = h.id("u");
        await h.verify(user, "email");
        return h.server("visit", { user });
      },
    },
  },
  {
    check: "is_bot",
    set: [
      { why: "a bot user agent", value: true, run: (h) => h.client("visit", { ua: BOT_UA }) },
      { why: "automation markers from the browser", value: true, run: (h) => h.client("visit", { automation: { headless: true } }) },
      {
        why: "no markers, but a forged user agent on a software renderer",
        value: true,
        run: (h) => h.client("visit", { ua: WINDOWS_UA, browser: h.browser(WINDOWS_UA, { ...ON_LINUX, webGlBasics: SWIFTSHADER }) }),
      },
    ],
    unset: [
      { why: "a desktop browser without markers", value: false, run: (h) => h.client("visit") },
      {
        why: "a software renderer alone (a Linux desktop without GPU drivers)",
        value: false,
        run: (h) =>
          h.client("visit", {
            ua: LINUX_UA,
            browser: h.browser(LINUX_UA, { ...ON_LINUX, webGlBasics: SWIFTSHADER }),
            headers: LINUX_HINTS,
          }),
      },
    ],
  },
  {
    check: "bot_user_agent",
    set: { why: "an HTTP library's user agent", value: true, run: (h) => h.client("visit", { ua: BOT_UA }) },
    unset: {
      why: "a browser user agent, even with client automation markers",
      value: false,
      run: (h) => h.client("visit", { automation: { webdriver: true } }),
    },
  },
  {
    check: "client_automation",
    set: { why: "webdriver reported by the browser", value: true, run: (h) => h.client("visit", { automation: { webdriver: true } }) },
    unset: { why: "a bot user agent without client markers", value: false, run: (h) => h.client("visit", { ua: BOT_UA }) },
  },
  {
    check: "user_agent_mismatch",
    set: [
      {
        why: "a Windows user agent from a browser whose platform is Linux x86_64",
        value: true,
        run: (h) => h.client("visit", { ua: WINDOWS_UA, browser: h.browser(WINDOWS_UA, ON_LINUX) }),
      },
      {
        why: "client hints saying Linux under a Windows user agent",
        value: true,
        run: (h) =>
          h.client("visit", {
            ua: WINDOWS_UA,
            browser: h.browser(WINDOWS_UA, { platform: "Win32" }),
            headers: { "sec-ch-ua": '"Chromium";v="142"', "sec-ch-ua-platform": '"Linux"', "sec-ch-ua-mobile": "?0" },
          }),
      },
    ],
    unset: [
      {
        why: "a Linux Chrome whose hints and platform agree",
        value: false,
        run: (h) => h.client("visit", { ua: LINUX_UA, browser: h.browser(LINUX_UA, ON_LINUX), headers: LINUX_HINTS }),
      },
      {
        why: "Firefox spoofing Windows everywhere (resistFingerprinting)",
        value: false,
        run: (h) => {
          const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0";
          return h.client("visit", { ua, browser: h.browser(ua, { platform: "Win32", userAgentData: undefined }) });
        },
      },
    ],
  },
  {
    check: "software_renderer",
    set: {
      why: "WebGL drawn by SwiftShader",
      value: true,
      run: (h) => h.client("visit", { browser: h.browser(undefined, { webGlBasics: SWIFTSHADER }) }),
    },
    unset: { why: "WebGL drawn by a GPU", value: false, run: (h) => h.client("visit", { browser: h.browser() }) },
  },
  {
    check: "headless_window",
    set: {
      why: "the 800×600 headless screen with a window exactly the page's size",
      value: true,
      run: (h) =>
        h.client("visit", {
          window: { outer_width: 800, outer_height: 600, inner_width: 800, inner_height: 600, screen_width: 800, screen_height: 600 },
        }),
    },
    unset: [
      {
        why: "a fullscreen window on a real display",
        value: false,
        run: (h) =>
          h.client("visit", {
            window: {
              outer_width: 1920,
              outer_height: 1080,
              inner_width: 1920,
              inner_height: 1080,
              screen_width: 1920,
              screen_height: 1080,
            },
          }),
      },
      { why: "an SDK that sends no sizes", value: false, run: (h) => h.client("visit") },
    ],
  },
  {
    check: "implausible_hardware",
    set: {
      why: "3 GB of device memory (Chromium reports powers of two)",
      value: true,
      run: (h) => h.client("visit", { browser: h.browser(undefined, { deviceMemory: 3 }) }),
    },
    unset: { why: "8 cores and 8 GB", value: false, run: (h) => h.client("visit", { browser: h.browser() }) },
  },
  {
    check: "timezone_mismatch",
    set: {
      why: "Paris time from a Tokyo IP",
      value: true,
      run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Europe/Paris" }),
    },
    unset: [
      { why: "Tokyo time from a Tokyo IP", value: false, run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Asia/Tokyo" }) },
      {
        // fakeComponents carries Europe/Paris: the components' zone is used when the SDK sends no separate one.
        why: "the components' zone (Paris) from London",
        value: false,
        run: (h) => h.client("visit", { ip: IP.london, browser: h.browser() }),
      },
    ],
  },
  {
    check: "timezone_in_ip_country",
    set: [
      { why: "Tokyo time from a Tokyo IP", value: true, run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Asia/Tokyo" }) },
      {
        // An alias of a country's zone is the same zone (Firefox reports Asia/Kolkata, CLDR lists Asia/Calcutta).
        why: "São Paulo's zone under its old alias from a São Paulo IP",
        value: true,
        run: (h) => h.client("visit", { ip: IP.saoPaulo, timezone: "Brazil/East" }),
      },
    ],
    unset: [
      {
        // One solar hour from Tokyo, but Seoul's zone is not Japan's.
        why: "Seoul time from a Tokyo IP",
        value: false,
        run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Asia/Seoul" }),
      },
      { why: "Paris time from a London IP", value: false, run: (h) => h.client("visit", { ip: IP.london, timezone: "Europe/Paris" }) },
      { why: "UTC names no place: unknown (null)", value: null, run: (h) => h.client("visit", { ip: IP.tokyo, timezone: "Etc/UTC" }) },
      {
        why: "a private IP has no country: unknown (null)",
        value: null,
        run: (h) => h.client("visit", { ip: h.ip(), timezone: "Asia/Tokyo" }),
      },
    ],
  },
  {
    check: "in_list",
    set: {
      why: "a user id added to a list",
      value: ["watched"],
      run: async (h) => {
        const user = h.id("u");
        const r = await h.t.app.inject({ method: "POST", url: "/v3/lists/watched/add", headers: h.t.auth, payload: { values: [user] } });
        expect(r.statusCode, r.body).toBe(200);
        return h.server("visit", { user });
      },
    },
    unset: { why: "a user in no list", value: [], run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "user_id",
    set: { why: "the user named by the request", value: "user-42", run: (h) => h.server("visit", { user: "user-42" }) },
    unset: { why: "an anonymous request", value: null, run: (h) => h.server("visit", {}) },
  },
  {
    check: "ip",
    set: { why: "the client IP behind the trusted proxy", value: IP.saoPaulo, run: (h) => h.client("visit", { ip: IP.saoPaulo }) },
    unset: { why: "a backend evaluation without an IP", value: null, run: (h) => h.server("visit", {}) },
  },
  {
    check: "email",
    set: {
      why: "the request's email, in lower case (surrounding space is a 400: SPEC.md 12)",
      value: "alice@example.com",
      run: (h) => h.server("visit", { user: h.id("u"), email: "Alice@Example.com" }),
    },
    unset: { why: "no email", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "email_domain",
    set: { why: "the email's domain", value: "example.org", run: (h) => h.server("visit", { user: h.id("u"), email: "bob@Example.org" }) },
    unset: { why: "no email", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "phone",
    set: { why: "the request's phone", value: "+33612345678", run: (h) => h.server("visit", { user: h.id("u"), phone: "+33612345678" }) },
    unset: { why: "no phone", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "fingerprint_id",
    set: {
      why: "the browser's fingerprint",
      value: (ev) => ev.fingerprint?.id ?? "missing",
      run: (h) => h.client("visit", { browser: h.browser() }),
    },
    unset: { why: "no components", value: null, run: (h) => h.client("visit", { bare: true }) },
  },
  {
    check: "device_id",
    set: { why: "the browser's device", value: (ev) => ev.device ?? "missing", run: (h) => h.client("visit", { browser: h.browser() }) },
    unset: { why: "a backend evaluation without a browser", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "device_type",
    set: [
      { why: "an iPhone", value: "mobile", run: (h) => h.client("visit", { ua: IPHONE_UA }) },
      { why: "an iPad", value: "tablet", run: (h) => h.client("visit", { ua: IPAD_UA }) },
    ],
    unset: { why: "a desktop browser", value: "computer", run: (h) => h.client("visit") },
  },
  {
    check: "content_link_count",
    set: {
      why: "a text with two links",
      value: 2,
      run: (h) => h.server("post", { user: h.id("u"), content: { text: "See https://example.com/a and www.example.net for more" } }),
    },
    unset: { why: "a text without links", value: 0, run: (h) => h.server("post", { user: h.id("u"), content: { text: plain(h) } }) },
  },
  {
    check: "content_has_contact_info",
    set: [
      {
        why: "a phone number",
        value: true,
        run: (h) => h.server("post", { user: h.id("u"), content: { text: "Call me on +1 415 555 0199 tonight" } }),
      },
      {
        why: "an email address",
        value: true,
        run: (h) => h.server("post", { user: h.id("u"), content: { text: "write to deals@example.com" } }),
      },
    ],
    unset: { why: "an ordinary comment", value: false, run: (h) => h.server("post", { user: h.id("u"), content: { text: plain(h) } }) },
  },
  {
    check: "content_repetition_count",
    set: {
      why: "a text two other users posted today",
      value: 2,
      run: async (h) => {
        const text = plain(h);
        await h.server("post", { user: h.id("u"), content: { text } });
        await h.server("post", { user: h.id("u"), content: { text } });
        return h.server("post", { user: h.id("u"), content: { text } });
      },
    },
    unset: {
      why: "the same user posting their text again",
      value: 0,
      run: async (h) => {
        const [user, text] = [h.id("u"), plain(h)];
        await h.server("post", { user, content: { text } });
        return h.server("post", { user, content: { text } });
      },
    },
  },
  {
    check: "content_spam_score",
    set: {
      why: "commercial spam vocabulary",
      value: above(0),
      run: (h) => h.server("post", { user: h.id("u"), content: { text: "Buy now at the best price, limited offer" } }),
    },
    unset: { why: "an ordinary comment", value: 0, run: (h) => h.server("post", { user: h.id("u"), content: { text: plain(h) } }) },
  },
];

// ---- scenario helpers used by the table ---------------------------------------------------------------------------------

/** Runs `fn` with the server's clock `ms` ahead (the HTTP path reads Date.now, as the scenario suite's clock does). */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const real = Date.now.bind(Date);
  const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + ms);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

/** A user signs up on a browser, then logs in again there: a confirmed account, no unconfirmed one tried. */
async function confirmedAgain(h: Harness) {
  const [user, b] = [h.id("u"), h.browser()];
  await h.client("signup", { user, browser: b });
  return h.client("login", { user, browser: b });
}

let londonSeq = 0;
/** Another London address of the shipped data (81.2.69.0/24), so that per-IP counts of other cases stay theirs. */
const londonIp = () => `81.2.69.${10 + (++londonSeq % 100)}`;

/** A user let in from a browser set to `first` (none: not seen before), then a new browser through a VPN set to `then`. */
function zoneAfter(first: string | undefined, then: string) {
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
function languageAfter(first: string | undefined, then: string) {
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
async function trustedLogin(
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
async function travel(h: Harness, from: string, to: string): Promise<Evaluation> {
  const [user, b] = [h.id("u"), h.browser()];
  // The first place must be trusted: the user signs in there (every case shares London, whose many unconfirmed accounts
  // from never-seen browsers a default login rule may challenge; the user then passes it).
  await trustedLogin(h, user, from, b);
  return h.client("login", { user, browser: b, ip: to });
}

/** A known user's second visit from the browser of the first. */
async function onTheUsualBrowser(h: Harness): Promise<Evaluation> {
  const [user, b] = [h.id("u"), h.browser()];
  await h.client("visit", { user, browser: b });
  return h.client("visit", { user, browser: b });
}

/**
 * The user signs in on a browser; then a request names the user with exactly its components on a visitor token of its
 * own (cleared storage, or someone who collected them): the same device, recognised, and not trusted as the user's.
 */
async function ownComponentsOnNewToken(h: Harness): Promise<Evaluation> {
  const [user, b, ip] = [h.id("u"), h.browser(), h.ip()];
  const first = await trustedLogin(h, user, ip, b);
  const ev = await h.client("visit", { user, browser: { ...b, token: `tok-${h.id("new")}-xxxxxxxx` }, ip });
  expect(ev.device).toBe(first.device);
  return ev;
}

/** A user's first device (a desktop browser they sign in on), then a second one (with the given user agent, else another desktop). */
async function twoDevices(h: Harness, ua?: string): Promise<Evaluation> {
  const user = h.id("u");
  await trustedLogin(h, user, h.net());
  return h.client("visit", { user, browser: h.browser(ua) });
}

/** An ordinary comment nobody else wrote. */
const plain = (h: Harness) => `Thanks for the quick delivery, the jacket fits well ${h.id("note")}`;

function assertValue(actual: CheckValue | undefined, expected: Expected, ev: Evaluation): void {
  if (typeof expected === "function") expect(actual).toBe(expected(ev));
  else if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    expect(typeof actual).toBe("number");
    expect(actual as number).toBeGreaterThan(expected.above);
  } else expect(actual).toEqual(expected);
}

const asList = (c: Case | Case[]): Case[] => (Array.isArray(c) ? c : [c]);

// ---- the suite ----------------------------------------------------------------------------------------------------------
describeStores("checks on %s", (kind) => {
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

  it("the table covers every check of the catalogue, and the snapshot holds exactly those checks", async () => {
    expect(TABLE.map((r) => r.check).sort()).toEqual(Object.keys(CHECKS).sort());
    const ev = await h.client("visit", { user: h.id("u") });
    // Risks are recorded beside the checks; `risk.<name>.score|severity` are derived for policies, not stored as checks.
    expect(Object.keys(ev.checks ?? {}).sort()).toEqual(Object.keys(CHECKS).sort());
    expect(ev.risks?.map((r) => r.name).sort()).toEqual(
      ["account_sharing", "ato", "bot", "content_abuse", "fake_account", "linked_accounts", "multi_accounting", "repeat_trial"].sort(),
    );
  });

  describe.each(TABLE)("$check", (row) => {
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
