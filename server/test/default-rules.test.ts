// The default policies' account-independent rules (docs/detection.md), through the real client API of a new environment, on
// both stores: what each rule catches, and the honest look-alike it leaves alone. The checks they read are pinned one
// by one in server/test/checks/ (a file per family); the population and attacks they were tuned on are in server/scenarios.
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { BROWSER_UA, describeStores, fakeComponents, IPHONE_UA, iphoneComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

interface Browser {
  components: Record<string, { value: unknown }>;
  token: string;
  ua: string;
}

const LONDON = "81.2.69.142";
const TOKYO = "126.0.0.1";
// Residential addresses of the shipped data in one country: two New York networks, and four on the West Coast
// 3,800–4,100 km away (one each: a never-seen browser per address, as the churn rules count them).
const NEW_YORK = "82.21.91.112";
const NEW_YORK_2 = "107.122.34.222";
/** A third New York network (used by one case only). */
const NEW_YORK_3 = "63.70.77.12";
const WEST = { sanJose: "64.210.186.238", concord: "171.181.179.89", santaClara: "137.102.226.68", redmond: "155.174.69.35" };
/** A carrier's address (T-Mobile USA: places no one) and two homes in New York, for one case only. */
const US_CARRIER = "172.56.1.1";
const US_HOMES = ["72.229.28.185", "98.116.1.1"];
// Residential addresses in England (one per case) and in Japan, each on a /24 of its own.
const ENGLAND = { reading: "92.48.100.160", exeter: "151.170.129.115", clubmoor: "77.99.91.106", callington: "2.96.98.28" };
const JAPAN = { chiyoda: "158.211.189.85", suginami: "27.139.248.176", chiyoda2: "133.160.143.22", chiyoda3: "219.165.171.34" };
/** Homes in England and addresses in Osaka and Tokyo, for the first phone abroad (used by no other case). */
const ABROAD = {
  homes: ["2.126.2.136", "5.70.100.80", "31.49.19.59"],
  osaka: "60.35.100.45",
  osaka2: "60.56.110.66",
  minato: "60.84.40.94",
};
// Exits of the shipped data: a VPN provider's (Datacamp), a cloud's (Amazon), Tor's.
const VPN = "89.187.160.1";
/** Another VPN provider's exit (M247, Milan), for a case whose sign-ups must not count with the others' on VPN. */
const VPN_2 = "217.156.50.95";
const AWS = "3.5.1.1";
/** Exits of a VPN provider (AS212238) and of a cloud (AS20860) that no other case uses. */
const LANGUAGE_EXITS = ["2.26.157.20", "5.77.32.20"];
/** A cloud's address (AS16509) and a VPN provider's exit (AS207137) that no other case uses. */
const STUFFING_HOST = "1.178.81.20";
const SLIP_VPN = "45.10.157.20";
/** A home in England and an address in Japan for the case of a stranger naming an account (used by no other case). */
const PROBE = { home: "86.1.1.1", abroad: "60.32.0.1" };
const TOR = "185.220.101.7";
/** Addresses of a proxy provider's ASN (Key Proxy), for the slow farm's sign-ups (used by no other case). */
const PROXY = (n: number) => `83.245.108.${n}`;
/** Residential addresses of the shipped data in Spain, Australia, Brazil and Japan (used by no other case). */
const ROTATING = { madrid: "47.62.93.110", southAustralia: "101.234.224.37", saoPaulo: "138.0.35.133", tokyo: "202.86.58.230" };
/** A home in Catalonia and a hotel in New South Wales, for a laptop carried on a flight. */
const TRIP = { home: "83.40.15.147", hotel: "120.19.0.200" };
const MIN = 60 * 1000;
/** Firefox on Windows: with resistFingerprinting it reports UTC, as Tor Browser and Mullvad Browser do. */
const FIREFOX_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0";

describeStores("default rules on %s", (kind) => {
  let t: TestApp;
  let seq = 0;
  beforeAll(async () => {
    // X-Forwarded-For carries the client address of each case (one trusted proxy in front).
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000" });
  });
  afterAll(async () => t?.close());

  const id = (prefix: string) => `${prefix}-${kind}-${++seq}`;
  /** A private address on a /24 of its own (no geolocation). */
  const net = () => `10.9.${++seq % 250}.${1 + Math.floor(seq / 250)}`;
  const browser = (): Browser => {
    const seed = id("browser");
    return { components: fakeComponents(seed), token: `tok-${seed}-xxxxxxxx`, ua: BROWSER_UA };
  };
  /** An anti-detect browser's k-th profile: one Chrome build, its audio output and canvas drawn anew (no other profile's), no token kept. */
  const noisyProfile = (k: number): Browser => {
    const seed = id("profile");
    const noise = fakeComponents(seed, {
      audio: 124.04347527516074 + (k + 1) * 1.3e-5 + seq * 1e-9,
      canvas: { winding: true, geometry: `data:image/png;base64,${seed}g`, text: `data:image/png;base64,${seed}t` },
    });
    return { components: noise, token: `tok-${seed}-xxxxxxxx`, ua: BROWSER_UA };
  };
  /** Firefox on Windows, whose components say so (no client hints). */
  const firefox = (): Browser => {
    const seed = id("browser");
    return {
      components: fakeComponents(seed, { platform: "Win32", userAgentData: undefined }),
      token: `tok-${seed}-xxxxxxxx`,
      ua: FIREFOX_UA,
    };
  };
  /** An iPhone's Safari: the same components as every iPhone of its model, with a visitor token of its own. */
  const phone = (): Browser => ({ components: iphoneComponents(), token: `tok-${id("phone")}-xxxxxxxx`, ua: IPHONE_UA });

  async function client(
    action: string,
    req: { user?: string; email?: string; ip: string; browser: Browser; timezone?: string },
  ): Promise<Evaluation> {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "user-agent": req.browser.ua, "x-forwarded-for": req.ip },
      payload: {
        client_id: t.clientId,
        ...(req.user ? { user: req.user } : {}),
        ...(req.email ? { email: req.email } : {}),
        signals: {
          components: req.browser.components,
          visitor_token: req.browser.token,
          url: "https://app.example.com/",
          ...(req.timezone ? { timezone: req.timezone } : {}),
        },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    expect(read.statusCode, read.body).toBe(200);
    return strict(Evaluation).parse(read.json());
  }

  /** The customer's backend consumes a login it let in: the password was right, so the account is confirmed. */
  async function consume(evaluationId: string): Promise<void> {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluations/${evaluationId}/consume`, headers: t.auth });
    expect(r.statusCode, r.body).toBe(200);
  }

  /**
   * The user signs up or signs in: the backend consumes what it let in (the account was created, the password was
   * right), which makes the place, the zone and the browser the user's own.
   */
  async function own(action: "signup" | "login", req: Parameters<typeof client>[1]): Promise<Evaluation> {
    const ev = await client(action, req);
    if (ev.verdict === "allow" || ev.verdict === "restrict") await consume(ev.id);
    return ev;
  }

  it("a browser trying a second unconfirmed account from another address is challenged; one account retried is not", async () => {
    const b = browser();
    expect((await client("login", { user: id("leaked"), ip: net(), browser: b })).verdict).toBe("allow");
    const second = await client("login", { user: id("leaked"), ip: net(), browser: b });
    expect(second.verdict, JSON.stringify(second.checks)).toBe("challenge");
    expect(second.policy?.name).toBe("Verify logins that cycle through accounts");
    expect(second.checks).toMatchObject({ fingerprint_provisional_attempts: 2, ip_provisional_attempts: 1 });

    // Someone whose first login the backend has not confirmed yet, retrying from the phone's next network.
    const [user, mine] = [id("owner"), browser()];
    await client("login", { user, ip: net(), browser: mine });
    const retry = await client("login", { user, ip: net(), browser: mine });
    expect(retry.checks?.fingerprint_provisional_attempts).toBe(1);
    expect(retry.verdict).toBe("allow");
  });

  it("a browser logging into its third account within the hour, a known one among them, is challenged", async () => {
    const [b, ip, known] = [browser(), net(), id("known")];
    await client("signup", { user: known, ip: net(), browser: browser() });
    expect((await client("login", { user: id("leaked"), ip, browser: b })).verdict).toBe("allow");
    const second = await client("login", { user: known, ip, browser: b });
    expect(second.checks?.fingerprint_accounts_tried).toBe(2);
    expect(second.verdict, JSON.stringify(second.checks)).toBe("allow");
    const third = await client("login", { user: id("leaked"), ip, browser: b });
    expect(third.checks).toMatchObject({ fingerprint_accounts_tried: 3, fingerprint_provisional_attempts: 2 });
    expect(third.verdict).toBe("challenge");
    expect(third.policy?.name).toBe("Verify logins that cycle through accounts");
  });

  // A combo list from one rented host: a known victim, then a guess, seconds apart. Someone who mistypes their login
  // through their VPN tries an unconfirmed name before their own: two unconfirmed accounts, not one after a known one.
  it("through a datacenter, a browser's second account within the hour, never confirmed after one that was, is challenged; a mistyped first login is not", async () => {
    const known = id("known");
    await own("signup", { user: known, ip: net(), browser: browser() });
    const [rig, host] = [browser(), STUFFING_HOST];
    await client("login", { user: known, ip: host, browser: rig });
    const guess = await client("login", { user: id("leaked"), ip: host, browser: rig });
    expect(guess.checks, JSON.stringify(guess.checks)).toMatchObject({
      ip_is_hosting: true,
      is_provisional_user: true,
      fingerprint_accounts_tried: 2,
      fingerprint_provisional_attempts: 1,
    });
    expect(guess.verdict).toBe("challenge");
    expect(guess.policy?.name).toBe("Verify logins that cycle through accounts");

    // A first login (an account the service never met) through a VPN, after the same login mistyped.
    const [user, mine] = [id("owner"), browser()];
    await client("login", { user: `${user}x`, ip: SLIP_VPN, browser: mine });
    const real = await client("login", { user, ip: SLIP_VPN, browser: mine });
    expect(real.checks, JSON.stringify(real.checks)).toMatchObject({ fingerprint_accounts_tried: 2, fingerprint_provisional_attempts: 2 });
    expect(real.verdict).toBe("allow");
  });

  it("a second unconfirmed account on a network where a third never-seen browser appears within the hour is challenged", async () => {
    // An anti-detect browser draws a new canvas, GPU, audio and fonts per attempt, on addresses of one /24.
    const block = () => `10.8.${++seq % 250}`;
    const home = block();
    // Two people of one home trying their first logins on new browsers (the counts include the request's own): let in.
    const first = await client("login", { user: id("leaked"), ip: `${home}.11`, browser: browser() });
    const second = await client("login", { user: id("leaked"), ip: `${home}.12`, browser: browser() });
    expect([first.verdict, second.verdict]).toEqual(["allow", "allow"]);
    expect(second.checks).toMatchObject({ network_provisional_attempts: 2, network_new_fingerprints: 2 });

    const farm = block();
    await client("signup", { user: id("farmed"), ip: `${farm}.20`, browser: browser() });
    const one = await client("login", { user: id("leaked"), ip: `${farm}.21`, browser: browser() });
    expect(one.checks).toMatchObject({ network_provisional_attempts: 1, network_new_fingerprints: 2 });
    expect(one.verdict).toBe("allow");
    const two = await client("login", { user: id("leaked"), ip: `${farm}.22`, browser: browser() });
    expect(two.checks).toMatchObject({ network_provisional_attempts: 2, network_new_fingerprints: 3, ip_provisional_attempts: 1 });
    expect(two.verdict, JSON.stringify(two.checks)).toBe("challenge");
    expect(two.policy?.name).toBe("Verify logins that cycle through accounts");
  });

  it("a never-seen browser on its second account within the hour from another address is challenged; on one address it is not", async () => {
    const [a, b, c] = [id("known"), id("known"), id("known")];
    for (const user of [a, b, c]) await client("signup", { user, ip: net(), browser: browser() });
    // Someone with two accounts signing into both on a new computer at one address: let in.
    const [mine, home] = [browser(), net()];
    const own = await client("login", { user: a, ip: home, browser: mine });
    await consume(own.id);
    const second = await client("login", { user: b, ip: home, browser: mine });
    expect(second.checks).toMatchObject({ fingerprint_accounts_tried: 2, is_new_fingerprint: true, ip_user_count: 2 });
    expect(second.verdict, JSON.stringify(second.checks)).toBe("allow");
    // A combo list through rotating proxies: the same browser, a fresh address per account.
    const rotating = browser();
    expect((await client("login", { user: a, ip: net(), browser: rotating })).verdict).toBe("allow");
    const next = await client("login", { user: c, ip: net(), browser: rotating });
    expect(next.checks).toMatchObject({ fingerprint_accounts_tried: 2, is_new_fingerprint: true, ip_user_count: 1 });
    expect(next.verdict, JSON.stringify(next.checks)).toBe("challenge");
    expect(next.policy?.name).toBe("Verify logins that cycle through accounts");
  });

  it("a kept browser profile naming an account never met, its second account within the hour from another address, is challenged", async () => {
    const known = id("known");
    await client("signup", { user: known, ip: net(), browser: browser() });
    // Someone whose second account the service has not met yet, signing into both on one computer at one address.
    const [mine, home] = [browser(), net()];
    const own = await client("login", { user: known, ip: home, browser: mine });
    await consume(own.id);
    const other = await client("login", { user: id("unmet"), ip: home, browser: mine });
    expect(other.checks).toMatchObject({ fingerprint_accounts_tried: 2, is_new_user: true, is_new_fingerprint: false, ip_user_count: 2 });
    expect(other.verdict, JSON.stringify(other.checks)).toBe("allow");
    // A combo list through rotating proxies from one kept profile: a known account, then one never met, each from a
    // fresh address. The profile is no longer a never-seen browser; the account it names is not one the service met.
    const kept = browser();
    expect((await client("login", { user: known, ip: net(), browser: kept })).verdict).toBe("allow");
    const next = await client("login", { user: id("leaked"), ip: net(), browser: kept });
    expect(next.checks).toMatchObject({
      fingerprint_accounts_tried: 2,
      is_new_user: true,
      is_new_fingerprint: false,
      ip_user_count: 1,
      fingerprint_provisional_attempts: 1,
    });
    expect(next.verdict, JSON.stringify(next.checks)).toBe("challenge");
    expect(next.policy?.name).toBe("Verify logins that cycle through accounts");
  });

  it("the fourth account from one phone that kept its token for two of them at one address is a repeat sign-up; a phone shop's new phones are not", async () => {
    // A phone shop: new phones of one model (the same components, each on its own token) set up for six customers.
    const shop = net();
    for (let k = 0; k < 6; k++) {
      const ev = await client("signup", { user: id("customer"), ip: shop, browser: phone() });
      expect(ev.checks?.fingerprint_ip_user_count).toBe(k + 1);
      expect(ev.verdict, JSON.stringify(ev.checks)).toBe("allow");
    }
    // One phone at home opening account after account, its storage cleared now and then: its token signed up two.
    const [ip, mine] = [net(), phone()];
    expect((await client("signup", { user: id("trial"), ip, browser: mine })).verdict).toBe("allow");
    expect((await client("signup", { user: id("trial"), ip, browser: phone() })).verdict).toBe("allow");
    const third = await client("signup", { user: id("trial"), ip, browser: mine });
    expect(third.checks).toMatchObject({ fingerprint_ip_user_count: 3, fingerprint_ip_reused_tokens_day: 1 });
    expect(third.verdict).toBe("allow");
    const fourth = await client("signup", { user: id("trial"), ip, browser: phone() });
    expect(fourth.checks).toMatchObject({ fingerprint_ip_user_count: 4, fingerprint_ip_reused_tokens_day: 1, device_user_count: 1 });
    expect(fourth.verdict).toBe("challenge");
    expect(fourth.policy?.name).toBe("Verify repeat sign-ups");
  });

  // One computer signing up account after account, its storage cleared before each (a new visitor token), alternating
  // its home line and its phone's connection (another carrier address each time): its accounts on two networks make its
  // fingerprint popular (three people on two networks), so the counts over accounts stop linking them. Its sign-ups of
  // the day on its fingerprint still do (counting only). A family's shared computer signing up three members at home, its
  // token kept, is let in.
  it("one computer clearing its storage, alternating its home line and its phone's connection, is challenged at its third sign-up of the day; a family's shared computer's third is not", async () => {
    // The family's shared computer (its token kept) signs up the three members who have no device of their own.
    const family = net();
    const shared = browser();
    for (let k = 0; k < 3; k++) {
      const ev = await own("signup", { user: id("member"), ip: family, browser: shared });
      expect(ev.verdict, JSON.stringify(ev.checks)).toBe("allow");
      expect(ev.checks).toMatchObject({ fingerprint_signups_day: k + 1, fingerprint_signups_elsewhere_day: 0, device_user_count: k + 1 });
    }
    const [home, rig] = [net(), browser()];
    const cleared = () => ({ ...rig, token: `tok-${id("cleared")}-xxxxxxxx` });
    expect((await own("signup", { user: id("multi"), ip: home, browser: cleared() })).verdict).toBe("allow");
    expect((await own("signup", { user: id("multi"), ip: net(), browser: cleared() })).verdict).toBe("allow");
    const third = await own("signup", { user: id("multi"), ip: home, browser: cleared() });
    // Popular by now: the counts over accounts see one account on it, two at this address.
    expect(third.checks, JSON.stringify(third.checks)).toMatchObject({
      fingerprint_signups_day: 3,
      fingerprint_signups_elsewhere_day: 1,
      fingerprint_user_count: 1,
      fingerprint_ip_user_count: 2,
    });
    expect(third.verdict).toBe("challenge");
    expect(third.policy?.name).toBe("Verify repeat sign-ups");
  });

  // A sign-up farm on a residential address: an anti-detect browser makes a new profile for every account (canvas,
  // audio, fonts drawn anew on one Chrome build), one through the home line, the next on another address of its /24.
  // A residence's NAT where six students sign up on real computers of that build (their own fonts, one audio output,
  // one canvas per GPU) sees as many never-seen browsers, and is let in.
  it("never-seen browsers of one build whose audio and canvas differ, signing up on one address or /24, are challenged from the second; a residence's students are not", async () => {
    const residence = net();
    for (let k = 0; k < 6; k++) {
      const ev = await client("signup", { user: id("student"), email: `${id("student")}@gmail.com`, ip: residence, browser: browser() });
      expect(ev.checks).toMatchObject({ ip_new_fingerprints_day: k + 1, ip_noisy_siblings_day: 0 });
      expect(ev.verdict, JSON.stringify(ev.checks)).toBe("allow");
    }
    const line = `10.66.${7 + (kind === "sqlite" ? 0 : 1)}`;
    const first = await client("signup", {
      user: id("farmed"),
      email: `${id("farm")}@gmail.com`,
      ip: `${line}.20`,
      browser: noisyProfile(0),
    });
    expect(first.verdict).toBe("allow");
    const second = await client("signup", {
      user: id("farmed"),
      email: `${id("farm")}@gmail.com`,
      ip: `${line}.20`,
      browser: noisyProfile(1),
    });
    expect(second.checks).toMatchObject({ ip_noisy_siblings_day: 1, network_noisy_siblings_day: 1 });
    expect(second.verdict).toBe("challenge");
    expect(second.policy?.name).toBe("Verify sign-ups from browser farms");
    const next = await client("signup", {
      user: id("farmed"),
      email: `${id("farm")}@gmail.com`,
      ip: `${line}.21`,
      browser: noisyProfile(2),
    });
    expect(next.checks).toMatchObject({ ip_noisy_siblings_day: 0, network_noisy_siblings_day: 2 });
    expect(next.verdict).toBe("challenge");
  });

  // An anti-detect browser's run on a combo list: a new profile for every login (audio and canvas drawn anew on one
  // Chrome build, no visitor token kept), one address of a residential /24 after another, naming accounts the service
  // never met; its zone is the proxy country's, so nothing but the profiles gives it away. An office's first morning,
  // where staff log in on real computers of that build (their own fonts, one audio output, one canvas), and a home where
  // a Brave (Chrome's user agent, its audio noised by design) logs in beside a Chrome, are let in.
  it("never-seen browsers of one build whose audio and canvas differ, logging in on one /24, are challenged from the second; an office's staff and a Brave beside a Chrome are not", async () => {
    const office = net();
    for (let k = 0; k < 5; k++) {
      const ev = await own("login", { user: id("staff"), ip: office, browser: browser() });
      expect(ev.checks).toMatchObject({ ip_new_fingerprints_day: k + 1, login_noisy_siblings_day: 0 });
      expect(ev.verdict, JSON.stringify(ev.checks)).toBe("allow");
    }
    const home = net();
    expect((await own("login", { user: id("parent"), ip: home, browser: browser() })).verdict).toBe("allow");
    const chrome = fakeComponents(id("brave"), { audio: 124.04347527516074 + 4e-7 });
    const uad = chrome.userAgentData?.value as Record<string, unknown>;
    const brave: Browser = {
      components: { ...chrome, userAgentData: { value: { ...uad, brands: ["Brave"] } } },
      token: `tok-${id("brave")}-xxxxxxxx`,
      ua: BROWSER_UA,
    };
    const teen = await own("login", { user: id("teen"), ip: home, browser: brave });
    expect(teen.checks).toMatchObject({ login_noisy_siblings_day: 0 });
    expect(teen.verdict).toBe("allow");

    const proxy = `10.67.${7 + (kind === "sqlite" ? 0 : 1)}`;
    const first = await client("login", { user: id("leaked"), ip: `${proxy}.20`, browser: noisyProfile(0) });
    expect(first.verdict).toBe("allow");
    const second = await client("login", { user: id("leaked"), ip: `${proxy}.21`, browser: noisyProfile(1) });
    expect(second.checks).toMatchObject({ login_noisy_siblings_day: 1, network_provisional_attempts: 2, network_new_fingerprints: 2 });
    expect(second.verdict, JSON.stringify(second.checks)).toBe("challenge");
    expect(second.policy?.name).toBe("Verify logins that cycle through accounts");
  });

  // The farm through a VPN provider: its exits span many /24s, so its profiles of one build meet on the provider's ASN
  // (one that no other case uses), from the second, before the provider's count of never-seen browsers adds up. Two
  // people signing up on real browsers of that build through another VPN provider are let in.
  it("never-seen browsers of one build whose audio differs, signing up through one VPN provider's exits, are challenged from the second; real browsers are not", async () => {
    for (const ip of ["102.129.143.30", "102.129.204.31"]) {
      const ev = await own("signup", { user: id("vpn"), email: `${id("vpn")}@gmail.com`, ip, browser: browser() });
      expect(ev.checks).toMatchObject({ provider_noisy_siblings_day: 0 });
      expect(ev.verdict, JSON.stringify(ev.checks)).toBe("allow");
    }
    const profile = (k: number): Browser => {
      const seed = id("profile");
      return {
        components: fakeComponents(seed, { audio: 124.04347527516074 + (k + 1) * 1.3e-5 + seq * 1e-9 }),
        token: `tok-${seed}-xxxxxxxx`,
        ua: BROWSER_UA,
      };
    };
    const first = await client("signup", {
      user: id("farmed"),
      email: `${id("farm")}@gmail.com`,
      ip: "2.56.252.40",
      browser: profile(0),
    });
    expect(first.verdict, JSON.stringify(first.checks)).toBe("allow");
    const second = await client("signup", {
      user: id("farmed"),
      email: `${id("farm")}@gmail.com`,
      ip: "2.58.36.41",
      browser: profile(1),
    });
    expect(second.checks).toMatchObject({ provider_noisy_siblings_day: 1, network_noisy_siblings_day: 0, provider_new_fingerprints: 2 });
    expect(second.verdict).toBe("challenge");
    expect(second.policy?.name).toBe("Verify sign-ups from browser farms");
  });

  // A residence's morning: eight students sign up behind its NAT, each on a browser of their own. One of them then logs
  // in on a second, never-seen browser there: amid the residence's churn, on a network the account already used. A
  // known account from elsewhere logging in there from a never-seen browser is still challenged.
  it("a known account from a never-seen browser amid a residence's churn is let in on a network it used; from elsewhere it is challenged", async () => {
    const residence = net();
    const students: string[] = [];
    for (let k = 0; k < 8; k++) {
      const user = id("student");
      students.push(user);
      expect((await own("signup", { user, ip: residence, browser: browser() })).verdict).toBe("allow");
    }
    const second = await client("login", { user: students[0] as string, ip: residence, browser: browser() });
    expect(second.checks, JSON.stringify(second.checks)).toMatchObject({ is_new_network: false, ip_new_fingerprints: 9 });
    expect(second.verdict).toBe("allow");
    const stranger = id("known");
    await own("signup", { user: stranger, ip: net(), browser: browser() });
    const there = await client("login", { user: stranger, ip: residence, browser: browser() });
    expect(there.checks).toMatchObject({ is_new_network: true, ip_new_fingerprints: 10 });
    expect(there.verdict).toBe("challenge");
    expect(there.policy?.name).toBe("Verify logins that cycle through accounts");
  });

  it("a new device in use where the account could not have travelled from its last trusted place is account sharing", async () => {
    const [user, owners] = [id("share"), browser()];
    expect((await own("login", { user, ip: LONDON, browser: owners })).verdict).toBe("allow");
    const friend = await client("access", { user, ip: TOKYO, browser: browser() });
    expect(friend.checks, JSON.stringify(friend.checks)).toMatchObject({ impossible_travel: true, is_new_device: true, is_new_ip: true });
    expect(friend.verdict).toBe("challenge");
    expect(friend.policy?.name).toBe("Cap devices per account");
    // The owner's own known browser, somewhere the geolocation cannot explain: not a new device, not sharing.
    const again = await client("access", { user, ip: TOKYO, browser: owners });
    expect(again.checks?.is_new_device).toBe(false);
    expect(again.policy?.name).not.toBe("Cap devices per account");
  });

  it("a known account without any located history is not challenged for its place on a new browser", async () => {
    const user = id("unplaced");
    await client("access", { user, ip: net(), browser: browser() });
    const login = await client("login", { user, ip: net(), browser: browser() });
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({
      is_new_user: false,
      is_new_fingerprint: true,
      is_new_network: true,
      is_new_country: null,
    });
    expect(login.verdict).toBe("allow");
  });

  // A VPN moves the exit, not the time zone of the computer behind it: a new browser through a VPN or a company's
  // datacenter gateway set to a zone the account was let in with is its owner's; a stranger's is set to their own zone,
  // or their proxy's. What the browser sends is the attacker's to write: a zone the account never had, one seen only on
  // attempts that were not let in, and UTC (every privacy browser's and Tor's) do not count.
  it("a new browser through a VPN or a datacenter set to the account's time zone is let in; set to another, it is challenged", async () => {
    const owner = async () => {
      const user = id("vpn");
      expect((await own("signup", { user, ip: LONDON, browser: browser(), timezone: "Europe/London" })).verdict).toBe("allow");
      return user;
    };
    for (const exit of [VPN, AWS]) {
      const laptop = await client("login", { user: await owner(), ip: exit, browser: browser(), timezone: "Europe/London" });
      expect(laptop.checks, JSON.stringify(laptop.checks)).toMatchObject({
        is_new_fingerprint: true,
        is_new_provider: true,
        is_new_timezone: false,
      });
      expect(laptop.verdict, exit).toBe("allow");

      const stranger = await client("login", { user: await owner(), ip: exit, browser: browser(), timezone: "Asia/Shanghai" });
      expect(stranger.checks?.is_new_timezone).toBe(true);
      expect(stranger.verdict, exit).toBe("challenge");
      expect(stranger.policy?.name).toBe("Verify unfamiliar logins");
    }
    // An alias names the same zone (Chrome reports Asia/Calcutta, Firefox Asia/Kolkata).
    const user = id("vpn");
    await own("signup", { user, ip: LONDON, browser: browser(), timezone: "Asia/Calcutta" });
    const alias = await client("login", { user, ip: VPN, browser: browser(), timezone: "Asia/Kolkata" });
    expect(alias.checks?.is_new_timezone).toBe(false);
    expect(alias.verdict).toBe("allow");
  });

  // A VPN or a company's gateway moves the exit, not the computer's clock nor its language: the owner's new browser
  // carries both. A stranger who shares the victim's zone (a neighbour country's capital, the same city) keeps their own
  // language.
  it("a new browser through a VPN or a datacenter set to the account's zone but to a language it was never let in with is challenged", async () => {
    const owner = async () => {
      const user = id("vpn-lang");
      expect((await own("signup", { user, ip: LONDON, browser: browser(), timezone: "Europe/London" })).verdict).toBe("allow");
      return user;
    };
    for (const exit of LANGUAGE_EXITS) {
      const laptop = await client("login", { user: await owner(), ip: exit, browser: browser(), timezone: "Europe/London" });
      expect(laptop.checks, JSON.stringify(laptop.checks)).toMatchObject({ is_new_timezone: false, is_new_language: false });
      expect(laptop.verdict, `${exit} ${laptop.policy?.name} ${JSON.stringify(laptop.checks)}`).toBe("allow");

      const foreign = { ...browser(), components: fakeComponents(id("vpn-lang-stranger"), { languages: [["pl-PL"]] }) };
      const stranger = await client("login", { user: await owner(), ip: exit, browser: foreign, timezone: "Europe/London" });
      expect(stranger.checks, JSON.stringify(stranger.checks)).toMatchObject({
        is_new_fingerprint: true,
        is_new_provider: true,
        is_new_timezone: false,
        is_new_language: true,
      });
      expect(stranger.verdict, exit).toBe("challenge");
      expect(stranger.policy?.name).toBe("Verify unfamiliar logins");
    }
  });

  // A residential proxy "in the victim's country" is seldom in the victim's region: a new browser on a new network far
  // from every place the account was let in from, its clock hours away from there and set to a zone the account was
  // never let in with, is challenged. Near home too when the zone is a named one (a proxy chosen in the victim's city,
  // a stranger's clock), and on a computer whatever its clock (a computer keeps the zone it was set to). The owner's
  // new browser on another network near home set to the local zone, a laptop away that keeps the home zone, and a
  // phone on a trip set to the local zone are let in.
  it("a new browser in the account's country set to a zone it was never let in with, hours away or on a computer, is challenged, near or far; the owner's is not", async () => {
    const owners: string[] = [];
    for (let i = 0; i < 8; i++) {
      const user = id("far");
      expect((await own("signup", { user, ip: NEW_YORK, browser: browser(), timezone: "America/New_York" })).verdict).toBe("allow");
      owners.push(user);
    }
    // A day later: a flight covers the distance, so impossible travel is not what decides.
    const later = Date.now() + 24 * 3600 * 1000;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => later);
    try {
      for (const [user, timezone, ip] of [
        [owners[0], "Europe/Moscow", WEST.sanJose],
        [owners[1], "Etc/UTC", WEST.concord],
      ] as const) {
        // UTC from a privacy browser (Firefox's): a Chromium on UTC is a server's clock, which another rule challenges.
        const stranger = await client("login", { user, ip, browser: timezone === "Etc/UTC" ? firefox() : browser(), timezone });
        expect(stranger.checks, JSON.stringify(stranger.checks)).toMatchObject({
          is_new_country: false,
          is_new_fingerprint: true,
          impossible_travel: false,
          timezone_mismatch: true,
        });
        expect(stranger.checks?.distance_from_trusted_km).toBeGreaterThanOrEqual(3500);
        expect(stranger.verdict, timezone).toBe("challenge");
        expect(stranger.policy?.name).toBe("Verify unfamiliar logins");
        expect(stranger.reasons).toContain("unfamiliar_place");
      }

      const near = await client("login", { user: owners[2], ip: NEW_YORK_2, browser: browser(), timezone: "Europe/Moscow" });
      expect(near.checks, JSON.stringify(near.checks)).toMatchObject({
        is_new_network: true,
        timezone_mismatch: true,
        is_new_timezone: true,
        distance_from_trusted_km: 0,
      });
      expect(near.verdict).toBe("challenge");
      expect(near.policy?.name).toBe("Verify unfamiliar logins");

      // The owner's new browser on another network near home, set to the local zone, or to UTC (a privacy browser's,
      // Firefox's: a Chromium on UTC is a server's clock).
      for (const [user, timezone] of [
        [owners[5], "America/New_York"],
        [owners[6], "Etc/UTC"],
      ] as const) {
        const own = await client("login", { user, ip: NEW_YORK_2, browser: timezone === "Etc/UTC" ? firefox() : browser(), timezone });
        expect(own.checks, JSON.stringify(own.checks)).toMatchObject({ is_new_network: true, distance_from_trusted_km: 0 });
        expect(own.verdict, timezone).toBe("allow");
      }

      const laptop = await client("login", { user: owners[3], ip: WEST.santaClara, browser: browser(), timezone: "America/New_York" });
      expect(laptop.checks, JSON.stringify(laptop.checks)).toMatchObject({ is_new_timezone: false, is_new_fingerprint: true });
      expect(laptop.verdict).toBe("allow");

      // A phone on a trip takes the zone of the network it is on.
      const trip = await client("login", { user: owners[4], ip: WEST.redmond, browser: phone(), timezone: "America/Los_Angeles" });
      expect(trip.checks, JSON.stringify(trip.checks)).toMatchObject({ is_new_timezone: true, timezone_mismatch: false });
      expect(trip.checks?.distance_from_trusted_km).toBeGreaterThanOrEqual(3500);
      expect(trip.verdict).toBe("allow");

      // A computer keeps the zone it was set to: near the account's places, a named zone the account never had is a
      // stranger's rig even one hour off (a residential proxy in the victim's city, set to the country's other zone).
      const rig = await client("login", { user: owners[7], ip: NEW_YORK_3, browser: browser(), timezone: "America/Chicago" });
      expect(rig.checks, JSON.stringify(rig.checks)).toMatchObject({
        device_type: "computer",
        is_new_network: true,
        is_new_timezone: true,
        timezone_mismatch: false,
        timezone_in_ip_country: true,
      });
      expect(rig.checks?.distance_from_trusted_km).toBeLessThan(500);
      expect(rig.verdict).toBe("challenge");
      expect(rig.policy?.name).toBe("Verify unfamiliar logins");
    } finally {
      clock.mockRestore();
    }
  });

  // An account let in only on its owner's phone, through the carrier (whose addresses place no one: no distance to the
  // account's places is measured), still has a country. A new computer there set to a zone of no part of that country
  // and to a language the account never had is a stranger's own browser behind a residential proxy in the victim's
  // country. The owner's new computer at home keeps the account's language, whatever zone it is set to.
  it("in an account's country known only from its carrier, a new computer set to another country's zone and a language the account never had is challenged; the owner's is not", async () => {
    const [victim, owner, expat] = [id("carrier"), id("carrier"), id("carrier")];
    for (const user of [victim, owner, expat])
      expect((await own("signup", { user, ip: US_CARRIER, browser: phone(), timezone: "America/New_York" })).verdict).toBe("allow");
    const later = Date.now() + 24 * 3600 * 1000;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => later);
    try {
      const rig = browser();
      rig.components = { ...rig.components, languages: { value: [["ru-RU"]] } };
      const stranger = await client("login", { user: victim, ip: US_HOMES[0] as string, browser: rig, timezone: "Europe/Moscow" });
      expect(stranger.checks, JSON.stringify(stranger.checks)).toMatchObject({
        is_new_country: false,
        distance_from_trusted_km: null,
        is_new_timezone: true,
        timezone_in_ip_country: false,
        is_new_language: true,
      });
      expect(stranger.verdict).toBe("challenge");
      expect(stranger.policy?.name).toBe("Verify unfamiliar logins");
      // The owners' new computers at home, in the account's language: set to the local zone, or to their home
      // country's (an expat's laptop).
      for (const [user, timezone] of [
        [owner, "America/New_York"],
        [expat, "Europe/Paris"],
      ] as const) {
        const mine = await client("login", { user, ip: US_HOMES[1] as string, browser: browser(), timezone });
        expect(mine.checks, JSON.stringify(mine.checks)).toMatchObject({ is_new_country: false, is_new_language: false });
        expect(mine.verdict, timezone).toBe("allow");
      }
    } finally {
      clock.mockRestore();
    }
  });

  // A phone abroad takes the zone of the network it is on; roaming on its home carrier it is let in (a known browser),
  // and the account then knows that zone. When its storage is cleared on the trip, its next login is a never-seen
  // browser in a never-seen country, set to a zone of that country the account was let in with: its owner. A
  // stranger there is set to the proxy's zone, new to the account, or to the victim's home zone, not that country's.
  it("a never-seen browser abroad set to a zone of that country the account was let in with is let in; a stranger's is not", async () => {
    const [trip, stay, home] = [id("trip"), id("stay"), id("home")];
    const phone = browser();
    for (const [user, ip, b] of [
      [trip, ENGLAND.reading, phone],
      [stay, ENGLAND.exeter, browser()],
      [home, ENGLAND.clubmoor, browser()],
    ] as const)
      expect((await own("signup", { user, ip, browser: b, timezone: "Europe/London" })).verdict).toBe("allow");
    const roaming = await client("access", { user: trip, ip: ENGLAND.reading, browser: phone, timezone: "Asia/Tokyo" });
    expect(roaming.checks, JSON.stringify(roaming.checks)).toMatchObject({ is_new_device: false, timezone_mismatch: true });
    expect(roaming.verdict).toBe("allow");

    const later = Date.now() + 24 * 3600 * 1000;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => later);
    try {
      const cleared = await client("login", { user: trip, ip: JAPAN.chiyoda, browser: browser(), timezone: "Asia/Tokyo" });
      expect(cleared.checks, JSON.stringify(cleared.checks)).toMatchObject({
        is_new_fingerprint: true,
        is_new_country: true,
        is_new_timezone: false,
        timezone_in_ip_country: true,
      });
      expect(cleared.verdict).toBe("allow");

      const local = await client("login", { user: stay, ip: JAPAN.suginami, browser: browser(), timezone: "Asia/Tokyo" });
      expect(local.checks, JSON.stringify(local.checks)).toMatchObject({ is_new_timezone: true, timezone_in_ip_country: true });
      expect(local.verdict).toBe("challenge");
      expect(local.policy?.name).toBe("Verify unfamiliar logins");

      // The victim's home zone from abroad: also what a laptop's first login on a trip looks like (challenged once).
      const homeZone = await client("login", { user: home, ip: JAPAN.chiyoda2, browser: browser(), timezone: "Europe/London" });
      expect(homeZone.checks, JSON.stringify(homeZone.checks)).toMatchObject({ is_new_timezone: false, timezone_in_ip_country: false });
      expect(homeZone.verdict).toBe("challenge");
    } finally {
      clock.mockRestore();
    }
  });

  // A phone takes the zone of the network it is on and keeps its owner's language: the owner's new phone abroad. A
  // stranger's browser keeps the stranger's language; an anti-detect browser, a computer, takes the proxy country's
  // zone and language, or is set to match the victim's.
  it("a never-seen phone abroad set to the local zone and to the account's language is let in; another language, or a computer, is not", async () => {
    const [owner, stranger, rig] = [id("trip"), id("trip"), id("trip")];
    for (const [k, user] of [owner, stranger, rig].entries()) {
      const signup = await own("signup", { user, ip: ABROAD.homes[k] as string, browser: browser(), timezone: "Europe/London" });
      expect(signup.verdict, JSON.stringify(signup.checks)).toBe("allow");
    }
    const start = Date.now() + 2 * 24 * 3600 * 1000;
    const owners = await at(start, 0, () => client("login", { user: owner, ip: ABROAD.osaka, browser: phone(), timezone: "Asia/Tokyo" }));
    expect(owners.checks, JSON.stringify(owners.checks)).toMatchObject({
      device_type: "mobile",
      is_new_fingerprint: true,
      is_new_country: true,
      is_new_timezone: true,
      timezone_in_ip_country: true,
      is_new_language: false,
    });
    expect(owners.verdict).toBe("allow");

    const japanese = { ...phone(), components: iphoneComponents({ languages: [["ja-JP"], ["ja-JP", "ja"]] }) };
    const strangers = await at(start, MIN, () =>
      client("login", { user: stranger, ip: ABROAD.osaka2, browser: japanese, timezone: "Asia/Tokyo" }),
    );
    expect(strangers.checks, JSON.stringify(strangers.checks)).toMatchObject({ device_type: "mobile", is_new_language: true });
    expect(strangers.verdict).toBe("challenge");
    expect(strangers.policy?.name).toBe("Verify unfamiliar logins");

    const computer = await at(start, 2 * MIN, () =>
      client("login", { user: rig, ip: ABROAD.minato, browser: browser(), timezone: "Asia/Tokyo" }),
    );
    expect(computer.checks, JSON.stringify(computer.checks)).toMatchObject({ device_type: "computer", is_new_language: false });
    expect(computer.verdict).toBe("challenge");
  });

  // An account only ever let in through a VPN or a datacenter has no place to compare with (is_new_country is null):
  // a stranger on an ordinary network is still told apart by a zone the account was never let in with.
  it("an account let in only through a VPN: a new browser on an ordinary network is challenged when set to a zone new to it", async () => {
    const [stranger, owner] = [id("unplaced"), id("unplaced")];
    for (const user of [stranger, owner]) {
      const signup = await own("signup", { user, ip: VPN_2, browser: browser(), timezone: "Europe/London" });
      expect(signup.verdict, `${signup.policy?.name} ${JSON.stringify(signup.checks)}`).toBe("allow");
    }
    const foreign = await client("login", { user: stranger, ip: JAPAN.chiyoda3, browser: browser(), timezone: "Asia/Tokyo" });
    expect(foreign.checks, JSON.stringify(foreign.checks)).toMatchObject({ is_new_country: null, is_new_timezone: true });
    expect(foreign.verdict).toBe("challenge");
    expect(foreign.policy?.name).toBe("Verify unfamiliar logins");

    const phone = await client("login", { user: owner, ip: ENGLAND.callington, browser: browser(), timezone: "Europe/London" });
    expect(phone.checks, JSON.stringify(phone.checks)).toMatchObject({ is_new_country: null, is_new_timezone: false });
    expect(phone.verdict).toBe("allow");
  });

  it("a zone seen only on attempts that were not let in, UTC, and Tor do not pass a new browser through", async () => {
    // The stranger's first attempt is challenged and never passed: its zone stays unfamiliar to the account.
    const user = id("vpn");
    await own("signup", { user, ip: LONDON, browser: browser(), timezone: "Europe/London" });
    expect((await client("login", { user, ip: VPN, browser: browser(), timezone: "Asia/Shanghai" })).verdict).toBe("challenge");
    const again = await client("login", { user, ip: VPN, browser: browser(), timezone: "Asia/Shanghai" });
    expect(again.checks).toMatchObject({ is_new_timezone: true, is_new_provider: true });
    expect(again.verdict).toBe("challenge");

    // UTC names no place: an account whose browsers report it has no zone to recognise a stranger's UTC by.
    const privacy = id("vpn");
    await own("signup", { user: privacy, ip: LONDON, browser: browser(), timezone: "UTC" });
    const utc = await client("login", { user: privacy, ip: VPN, browser: browser(), timezone: "Etc/UTC" });
    expect(utc.checks?.is_new_timezone).toBe(null);
    expect(utc.verdict).toBe("challenge");

    // Tor, whatever the zone.
    const tor = await client("login", {
      user: await (async () => {
        const u = id("vpn");
        await own("signup", { user: u, ip: LONDON, browser: browser(), timezone: "Europe/London" });
        return u;
      })(),
      ip: TOR,
      browser: browser(),
      timezone: "Europe/London",
    });
    expect(tor.checks?.is_new_timezone).toBe(false);
    expect(tor.verdict).toBe("challenge");
  });

  /** Runs `fn` with the server's clock at `ms` after `from` (the HTTP path reads Date.now). */
  async function at<T>(from: number, ms: number, fn: () => Promise<T>): Promise<T> {
    const clock = vi.spyOn(Date, "now").mockImplementation(() => from + ms);
    try {
      return await fn();
    } finally {
      clock.mockRestore();
    }
  }

  // One browser profile on a combo list, an attempt every two hours through a fresh address: known victims first, then
  // guesses. A family computer three accounts use, one of whose logins is mistyped, is let in.
  it("a browser three accounts used, trying its second unconfirmed account of the day, is challenged; a family's mistyped login is not", async () => {
    const start = Date.now() + 4 * 24 * 3600 * 1000;
    const [rig, family] = [browser(), browser()];
    const victims = [id("known"), id("known"), id("known")];
    for (const user of victims) await own("signup", { user, ip: net(), browser: browser() });
    const verdicts: string[] = [];
    for (const [k, user] of [...victims, id("leaked"), id("leaked")].entries()) {
      const ev = await at(start, k * 2 * 60 * MIN, () => client("login", { user, ip: net(), browser: rig }));
      verdicts.push(ev.verdict);
      if (k === 4) {
        expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
          fingerprint_provisional_attempts_day: 2,
          fingerprint_provisional_attempts: 1,
        });
        expect(ev.checks?.fingerprint_user_count).toBeGreaterThanOrEqual(3);
        expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
      }
    }
    expect(verdicts[3]).toBe("allow");
    expect(verdicts[4]).toBe("challenge");

    const home = net();
    const members = [id("member"), id("member"), id("member")];
    for (const [k, user] of members.entries()) await at(start, k * 2 * 60 * MIN, () => own("signup", { user, ip: home, browser: family }));
    const typo = await at(start, 7 * 60 * MIN, () => client("login", { user: `${members[0]}x`, ip: home, browser: family }));
    expect(typo.checks?.fingerprint_user_count).toBeGreaterThanOrEqual(3);
    expect(typo.verdict).toBe("allow");
    const login = await at(start, 7 * 60 * MIN + 20_000, () => own("login", { user: members[0] as string, ip: home, browser: family }));
    expect(login.verdict).toBe("allow");
  });

  // An anti-detect run paced under every hourly count (low and slow): a new browser and address each time, on one /24.
  it("a low and slow run of never-seen browsers on one network is challenged once the day's counts add up", async () => {
    const start = Date.now() + 3 * 24 * 3600 * 1000;
    const known = [id("known"), id("known"), id("known"), id("known"), id("known"), id("known"), id("known"), id("known")];
    for (const user of known) await own("signup", { user, ip: net(), browser: browser() });

    // Known accounts, one every 25 minutes (no hour holds more than three new browsers): the eighth never-seen browser
    // of the day on the network is challenged.
    const block = `10.6.${++seq % 250}`;
    const verdicts: string[] = [];
    for (const [k, user] of known.entries()) {
      const ev = await at(start, k * 25 * MIN, () => client("login", { user, ip: `${block}.${20 + k}`, browser: browser() }));
      expect(ev.checks?.network_new_fingerprints, JSON.stringify(ev.checks)).toBeLessThanOrEqual(3);
      expect(ev.checks?.network_new_fingerprints_day).toBe(k + 1);
      verdicts.push(ev.verdict);
      if (k === 7) expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
    }
    expect(verdicts).toEqual([...Array(7).fill("allow"), "challenge"]);

    // Accounts never met, one every 35 minutes: the third one tried from a never-seen browser, the fourth new browser
    // of the day, is challenged (no hour holds more than two of either).
    const farm = `10.6.${++seq % 250}`;
    const slow: string[] = [];
    for (let k = 0; k < 4; k++) {
      const user = k === 0 ? known[0] : id("leaked");
      const ev = await at(start, k * 35 * MIN, () => client("login", { user, ip: `${farm}.${20 + k}`, browser: browser() }));
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
        network_provisional_attempts: Math.min(k, 2),
        network_new_fingerprints: Math.min(k + 1, 2),
      });
      slow.push(ev.verdict);
      if (k === 3) {
        expect(ev.checks).toMatchObject({ network_provisional_attempts_day: 3, network_new_fingerprints_day: 4 });
        expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
      }
    }
    expect(slow).toEqual(["allow", "allow", "allow", "challenge"]);

    // Mostly known accounts, one every 25 minutes, then accounts never met an hour apart: the second of those, where
    // six or more never-seen browsers appeared that day, is challenged (no hour holds two unconfirmed accounts).
    const mixed = `10.6.${++seq % 250}`;
    const run: string[] = [];
    for (let k = 0; k < 7; k++) {
      const user = k < 5 ? (known[k] as string) : id("leaked");
      const when = k < 6 ? k * 25 * MIN : 190 * MIN;
      const ev = await at(start, when, () => client("login", { user, ip: `${mixed}.${20 + k}`, browser: browser() }));
      run.push(ev.verdict);
      if (k === 6) {
        expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
          network_provisional_attempts: 1,
          network_new_fingerprints: 1,
          network_provisional_attempts_day: 2,
          network_new_fingerprints_day: 7,
        });
        expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
      }
    }
    expect(run).toEqual([...Array(6).fill("allow"), "challenge"]);

    // A household on its own /24 whose three people each try a first login on a new browser over the day, one of them
    // mistyped (never confirmed): let in.
    const home = `10.6.${++seq % 250}`;
    for (let k = 0; k < 3; k++) {
      const login = { user: id("leaked"), ip: `${home}.11`, browser: browser() };
      const ev = await at(start, k * 3 * 60 * MIN, () => (k === 1 ? client("login", login) : own("login", login)));
      expect(ev.verdict, JSON.stringify(ev.checks)).toBe("allow");
      if (k === 2) expect(ev.checks).toMatchObject({ network_provisional_attempts_day: 2, network_new_fingerprints_day: 3 });
    }
  });

  // A combo list through rotating proxies from one kept browser profile, paced at one attempt every 65 minutes: no hour
  // holds two of its accounts, so no hourly count of the browser's reaches its threshold.
  it("one browser trying unconfirmed accounts through rotating addresses, one an hour, is challenged at the fourth of the day", async () => {
    const start = Date.now() + 5 * 24 * 3600 * 1000;
    const [b, helper] = [browser(), browser()];
    const verdicts: string[] = [];
    for (let k = 0; k < 4; k++) {
      const ev = await at(start, k * 65 * MIN, () => client("login", { user: id("leaked"), ip: net(), browser: b }));
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
        device_provisional_attempts: 1,
        fingerprint_provisional_attempts: 1,
        device_provisional_attempts_day: k + 1,
        fingerprint_provisional_attempts_day: k + 1,
      });
      verdicts.push(ev.verdict);
      if (k === 3) expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
    }
    expect(verdicts).toEqual(["allow", "allow", "allow", "challenge"]);

    // Someone who mistypes a login twice over the day, then signs in, on one browser at home: let in.
    const home = net();
    for (let k = 0; k < 2; k++) await at(start, k * 3 * 60 * MIN, () => client("login", { user: id("typo"), ip: home, browser: helper }));
    const signedIn = await at(start, 7 * 60 * MIN, () => own("login", { user: id("leaked"), ip: home, browser: helper }));
    expect(signedIn.checks).toMatchObject({ device_provisional_attempts_day: 3 });
    expect(signedIn.verdict).toBe("allow");
  });

  // A combo list through a residential proxy network from one kept browser profile, a country per attempt, two hours
  // apart: no hour holds two of its accounts, and a day's count of them is still low.
  it("one browser profile in Madrid, then in Australia two hours later, is challenged whatever account it names; a laptop carried there is not", async () => {
    const start = Date.now() + 7 * 24 * 3600 * 1000;
    const victim = id("victim");
    await own("signup", { user: victim, ip: net(), browser: browser() });
    const b = browser();
    const first = await at(start, 0, () => client("login", { user: id("leaked"), ip: ROTATING.madrid, browser: b }));
    expect(first.checks?.browser_impossible_travel).toBe(false);
    expect(first.verdict).toBe("allow");
    const second = await at(start, 2 * 60 * MIN, () => client("login", { user: victim, ip: ROTATING.southAustralia, browser: b }));
    expect(second.checks, JSON.stringify(second.checks)).toMatchObject({
      browser_impossible_travel: true,
      fingerprint_accounts_tried: 1,
      fingerprint_provisional_attempts_day: 1,
    });
    expect(second.policy?.name).toBe("Verify logins that cycle through accounts");
    expect(second.verdict).toBe("challenge");
    // The same profile's storage with a canvas and a GPU drawn anew: its visitor token was in Australia.
    const third = await at(start, 4 * 60 * MIN, () =>
      client("login", { user: id("leaked"), ip: ROTATING.saoPaulo, browser: { ...browser(), token: b.token } }),
    );
    expect(third.checks?.browser_impossible_travel).toBe(true);
    expect(third.verdict).toBe("challenge");

    // Someone signs up at home in Catalonia, flies to Sydney and logs in at the hotel 22 hours later: carried, not sent.
    const [traveller, laptop] = [id("traveller"), browser()];
    await at(start, 0, () => own("signup", { user: traveller, ip: TRIP.home, browser: laptop }));
    const away = await at(start, 22 * 60 * MIN, () => client("login", { user: traveller, ip: TRIP.hotel, browser: laptop }));
    expect(away.checks?.browser_impossible_travel).toBe(false);
    expect(away.verdict, JSON.stringify(away.checks)).toBe("allow");
    // A second account on the same laptop at the hotel an hour later (a partner's): the laptop was last here.
    const partner = await at(start, 23 * 60 * MIN, () => client("login", { user: id("partner"), ip: TRIP.hotel, browser: laptop }));
    expect(partner.checks?.browser_impossible_travel).toBe(false);
  });

  // The same run from a profile whose storage is cleared before every attempt (a fresh visitor token each time): only
  // its fingerprint follows it, and trying accounts nobody confirmed does not make that fingerprint popular.
  it("a browser profile whose storage is cleared before each attempt is followed from country to country, whatever accounts it names", async () => {
    const start = Date.now() + 8 * 24 * 3600 * 1000;
    const comps = fakeComponents(id("cleared"));
    const victim = id("victim");
    await own("signup", { user: victim, ip: net(), browser: browser() });
    const places = [ROTATING.madrid, ROTATING.saoPaulo, ROTATING.southAustralia, ROTATING.tokyo, ROTATING.madrid];
    const verdicts: string[] = [];
    for (const [k, ip] of places.entries()) {
      const user = k === 2 ? victim : id("leaked");
      const b = { components: comps, token: `tok-${id("cleared")}-xxxxxxxx`, ua: BROWSER_UA };
      const ev = await at(start, k * 2 * 60 * MIN, () => client("login", { user, ip, browser: b }));
      if (k > 0) expect(ev.checks?.browser_impossible_travel, `attempt ${k + 1}: ${JSON.stringify(ev.checks)}`).toBe(true);
      verdicts.push(ev.verdict);
    }
    expect(verdicts).toEqual(["allow", "challenge", "challenge", "challenge", "challenge"]);
  });

  // A provider's pool spans many /24s: an anti-detect run through it never piles unconfirmed accounts on one network.
  it("never-seen browsers through one VPN provider's addresses across /24s: a known account is challenged from the sixth within the hour, one never met from the third", async () => {
    const start = Date.now() + 6 * 24 * 3600 * 1000;
    const known = Array.from({ length: 6 }, () => id("known"));
    for (const user of known) await own("signup", { user, ip: net(), browser: browser() });
    const verdicts: string[] = [];
    for (const [k, user] of known.entries()) {
      const ip = `89.187.${161 + (k % 3)}.${10 + k}`;
      const ev = await at(start, k * MIN, () => client("login", { user, ip, browser: browser() }));
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
        ip_is_vpn: true,
        is_new_user: false,
        provider_new_fingerprints: k + 1,
        network_new_fingerprints: Math.floor(k / 3) + 1,
      });
      verdicts.push(ev.verdict);
      if (k === 5) expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
    }
    // Five subscribers' logins on new browsers through one VPN provider within the hour: let in.
    expect(verdicts).toEqual(["allow", "allow", "allow", "allow", "allow", "challenge"]);

    // A day later, accounts the service never met, through the same provider: the third never-seen browser within the
    // hour is challenged (what the sign-up farm rule counts). Two subscribers' first logins are let in.
    const leaked: string[] = [];
    for (let k = 0; k < 3; k++) {
      const ip = `89.187.${161 + (k % 3)}.${30 + k}`;
      const ev = await at(start, 26 * 60 * MIN + k * MIN, () => client("login", { user: id("leaked"), ip, browser: browser() }));
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
        is_new_user: true,
        is_provisional_user: true,
        provider_new_fingerprints: k + 1,
        provider_new_fingerprints_day: k + 1,
      });
      leaked.push(ev.verdict);
      if (k === 2) expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
    }
    expect(leaked).toEqual(["allow", "allow", "challenge"]);
  });

  it("sign-ups from never-seen browsers through one provider, paced under the hourly count, are challenged from the fifth of the day", async () => {
    const start = Date.now() + 4 * 24 * 3600 * 1000;
    const verdicts: string[] = [];
    for (let k = 0; k < 5; k++) {
      const ev = await at(start, k * 2 * 60 * MIN, () =>
        client("signup", { user: id("farmed"), email: `${id("farm")}@gmail.com`, ip: PROXY(20 + k), browser: browser() }),
      );
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({ provider_new_fingerprints: 1, provider_new_fingerprints_day: k + 1 });
      verdicts.push(ev.verdict);
      if (k === 4) expect(ev.policy?.name).toBe("Verify sign-ups from browser farms");
    }
    expect(verdicts).toEqual(["allow", "allow", "allow", "allow", "challenge"]);
  });

  // An anti-detect rig trying a combo list: a never-seen browser per attempt, 40 minutes apart, set to the rig's own
  // zone (Berlin) whatever country its proxy is in. Behind a residential proxy's English /24, the second account never
  // confirmed from a never-seen browser that day is challenged; a household there set to its own country's zone, trying
  // two first logins the same day, is let in, and so are two browsers reporting UTC. Through a cloud's addresses across
  // /24s (Amazon, Virginia) the same; through a company's gateway in the next country (Amazon, Frankfurt, set to Paris:
  // a clock an hour from the address) and through a VPN provider's exits (Datacamp, in the United States) set to Paris
  // not: a VPN's exit is its user's choice, anywhere.
  it("never-seen browsers set to a zone of no part of the country, on accounts never confirmed: the second of the day on a /24 or a cloud is challenged; on the country's zone, or a VPN, it is not", async () => {
    const start = Date.now() + 9 * 24 * 3600 * 1000;
    const attempt = async (
      k: number,
      ip: string,
      timezone: string,
      expected: Record<string, unknown>,
      act: typeof own = client,
    ): Promise<string> => {
      const ev = await at(start, k * 40 * MIN, () => act("login", { user: id("leaked"), ip, browser: browser(), timezone }));
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({ is_new_fingerprint: true, is_provisional_user: true, ...expected });
      if (ev.verdict !== "allow") expect(ev.policy?.name).toBe("Verify logins that cycle through accounts");
      return ev.verdict;
    };

    const proxied: string[] = [];
    for (let k = 0; k < 2; k++)
      proxied.push(
        await attempt(k, `2.96.99.${20 + k}`, "Europe/Berlin", {
          ip_country: "GB",
          ip_is_anonymous: false,
          timezone_in_ip_country: false,
          network_new_fingerprints_day: k + 1,
        }),
      );
    expect(proxied).toEqual(["allow", "challenge"]);

    const household: string[] = [];
    for (let k = 0; k < 2; k++)
      household.push(
        await attempt(
          k,
          `92.48.101.${20 + k}`,
          "Europe/London",
          { timezone_in_ip_country: true, network_new_fingerprints_day: k + 1 },
          own,
        ),
      );
    expect(household).toEqual(["allow", "allow"]);

    // Privacy browsers (Firefox resistFingerprinting, Tor Browser) all report UTC, which is no country's zone: neither
    // in nor out of it. (A Chromium reporting UTC runs on a server's clock: the next case.)
    const utc: string[] = [];
    for (let k = 0; k < 2; k++)
      utc.push(
        await attempt(
          k,
          `77.99.92.${20 + k}`,
          "UTC",
          { ip_country: "GB", timezone_in_ip_country: null, server_timezone: false, network_new_fingerprints_day: k + 1 },
          (action, req) => client(action, { ...req, browser: firefox() }),
        ),
      );
    expect(utc).toEqual(["allow", "allow"]);

    const cloud: string[] = [];
    for (let k = 0; k < 2; k++)
      cloud.push(
        await attempt(k, `3.5.${3 + k}.${20 + k}`, "Asia/Tokyo", {
          ip_is_hosting: true,
          timezone_in_ip_country: false,
          network_new_fingerprints_day: 1,
          provider_new_fingerprints_day: k + 1,
        }),
      );
    expect(cloud).toEqual(["allow", "challenge"]);

    // A company's gateway on a cloud in the next country (Amazon, Frankfurt), its staff's browsers set to Paris: the
    // clock is near, and their first logins are let in.
    const gateway: string[] = [];
    for (let k = 0; k < 2; k++)
      gateway.push(
        await attempt(k, `3.${120 + k}.9.${20 + k}`, "Europe/Paris", {
          ip_is_hosting: true,
          ip_country: "DE",
          timezone_in_ip_country: false,
          timezone_mismatch: false,
          provider_new_fingerprints_day: k + 1,
        }),
      );
    expect(gateway).toEqual(["allow", "allow"]);

    const vpn: string[] = [];
    for (let k = 0; k < 2; k++)
      vpn.push(
        await attempt(k, `89.187.${170 + k}.${20 + k}`, "Europe/Paris", {
          ip_is_vpn: true,
          timezone_in_ip_country: false,
          provider_new_fingerprints_day: k + 1,
        }),
      );
    expect(vpn).toEqual(["allow", "allow"]);
  });

  // A stuffing tool's Chromium on a server or in a container runs on the machine's clock, UTC: its first attempt, on an
  // account never met or from a browser new to a known account, is challenged before any count adds up. A privacy
  // browser reports UTC too, but it is Firefox's; and the owner's own Chromium set to UTC, signed in before, is let in.
  it("a Chromium browser set to UTC, new to the account or naming one never met, is challenged at its first attempt; a privacy browser's UTC and the owner's browser are not", async () => {
    const rig = await client("login", { user: id("leaked"), ip: net(), browser: browser(), timezone: "Etc/UTC" });
    expect(rig.checks, JSON.stringify(rig.checks)).toMatchObject({
      server_timezone: true,
      is_new_user: true,
      fingerprint_provisional_attempts: 1,
      network_new_fingerprints_day: 1,
    });
    expect(rig.verdict).toBe("challenge");
    expect(rig.policy?.name).toBe("Verify logins that cycle through accounts");

    // A known account, its password on the list, from a new Chromium on UTC on the owner's own network.
    const [victim, home] = [id("victim"), net()];
    await own("signup", { user: victim, ip: home, browser: browser(), timezone: "Europe/London" });
    const known = await client("login", { user: victim, ip: home, browser: browser(), timezone: "UTC" });
    expect(known.checks, JSON.stringify(known.checks)).toMatchObject({ server_timezone: true, is_new_fingerprint: true, is_new_ip: false });
    expect(known.verdict).toBe("challenge");
    expect(known.policy?.name).toBe("Verify logins that cycle through accounts");

    // Firefox with resistFingerprinting, a first login on an account the service never met.
    const privacy = await client("login", { user: id("owner"), ip: net(), browser: firefox(), timezone: "UTC" });
    expect(privacy.checks, JSON.stringify(privacy.checks)).toMatchObject({ server_timezone: false, is_new_user: true });
    expect(privacy.verdict).toBe("allow");

    // A system administrator's own Chromium, set to UTC, signed up on it and back from another network.
    const [admin, mine] = [id("admin"), browser()];
    await own("signup", { user: admin, ip: net(), browser: mine, timezone: "UTC" });
    const back = await client("login", { user: admin, ip: net(), browser: mine, timezone: "UTC" });
    expect(back.checks, JSON.stringify(back.checks)).toMatchObject({ server_timezone: true, is_new_fingerprint: false });
    expect(back.verdict).toBe("allow");
  });

  // A sign-up farm's rig on a cloud keeps its own zone from one sign-up to the next: through a datacenter (Amazon,
  // Virginia) set to Tokyo, the second never-seen browser of the day is challenged. Set to New York (a zone of the
  // datacenter's country: an office's gateway), or through a VPN provider's exits set to Paris, two are let in; so are
  // two with work addresses through a company's gateway in the next country.
  it("sign-ups from never-seen browsers through a datacenter, set to a zone of no part of its country, are challenged from the second of the day", async () => {
    const start = Date.now() + 11 * 24 * 3600 * 1000;
    const signups = async (ips: string[], timezone: string, expected: Record<string, unknown>): Promise<string[]> => {
      const verdicts: string[] = [];
      for (const [k, ip] of ips.entries()) {
        const ev = await at(start, k * 3 * 60 * MIN, () =>
          client("signup", { user: id("farmed"), email: `${id("farm")}@gmail.com`, ip, browser: browser(), timezone }),
        );
        expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
          is_new_fingerprint: true,
          provider_new_fingerprints_day: k + 1,
          ...expected,
        });
        if (ev.verdict !== "allow") expect(ev.policy?.name).toBe("Verify sign-ups from browser farms");
        verdicts.push(ev.verdict);
      }
      return verdicts;
    };
    expect(await signups(["3.5.5.20", "3.5.6.21"], "Asia/Tokyo", { ip_is_hosting: true, timezone_in_ip_country: false })).toEqual([
      "allow",
      "challenge",
    ]);
    // The next day, through the same cloud, an office's gateway: its staff's browsers are set to a zone of its country.
    const nextDay = 24 * 60 * MIN;
    const office: string[] = [];
    for (let k = 0; k < 2; k++) {
      const ev = await at(start, nextDay + k * 3 * 60 * MIN, () =>
        client("signup", {
          user: id("staff"),
          email: `${id("staff")}@gmail.com`,
          ip: `3.5.${7 + k}.20`,
          browser: browser(),
          timezone: "America/New_York",
        }),
      );
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({ ip_is_hosting: true, timezone_in_ip_country: true });
      office.push(ev.verdict);
    }
    expect(office).toEqual(["allow", "allow"]);
    expect(await signups(["89.187.172.20", "89.187.173.21"], "Europe/Paris", { ip_is_vpn: true, timezone_in_ip_country: false })).toEqual([
      "allow",
      "allow",
    ]);
    // A company's gateway on a cloud in the next country (Amazon, Frankfurt), browsers set to Paris an hour from it:
    // staff signing up with the company's addresses are let in; a webmail address there, the third never-seen browser
    // of the day, is what a farm's sign-up looks like.
    const gateway: string[] = [];
    for (const [k, domain] of ["acme-industrie.fr", "acme-industrie.fr", "gmail.com"].entries()) {
      const ev = await at(start, k * 3 * 60 * MIN, () =>
        client("signup", {
          user: id("staff"),
          email: `${id("staff")}@${domain}`,
          ip: `3.120.${30 + k}.20`,
          browser: browser(),
          timezone: "Europe/Paris",
        }),
      );
      expect(ev.checks, JSON.stringify(ev.checks)).toMatchObject({
        ip_country: "DE",
        ip_is_hosting: true,
        timezone_in_ip_country: false,
        timezone_mismatch: false,
        email_is_webmail: domain === "gmail.com",
        provider_new_fingerprints_day: k + 1,
      });
      if (ev.verdict !== "allow") expect(ev.policy?.name).toBe("Verify sign-ups from browser farms");
      gateway.push(ev.verdict);
    }
    expect(gateway).toEqual(["allow", "allow", "challenge"]);
  });

  // The client id is public, so a browser naming an account proves nothing until the backend confirms it (consumes a
  // login it let in: the password was right) or the user passes a challenge there. A stranger who names the account on
  // pages that need no password, from abroad, makes neither the place, the zone nor the browser the account's, nor a
  // device of it in use: a day later (no impossible travel to tell), a login from there with the stolen password is
  // still an unfamiliar one, and the owner's devices at home are measured from home, not from the stranger's city.
  it("pages a stranger's browser opened naming an account make nothing of theirs the account's", async () => {
    const [user, home, stranger] = [id("named"), browser(), browser()];
    expect((await own("signup", { user, ip: PROBE.home, browser: home, timezone: "Europe/London" })).verdict).toBe("allow");
    for (const action of ["access", "post_comment"])
      await client(action, { user, ip: PROBE.abroad, browser: stranger, timezone: "Asia/Tokyo" });
    // Nor is the stranger's browser a device of the account in use in Tokyo: the owner's new phone at home is no sharing.
    const ownersPhone = await client("access", { user, ip: PROBE.home, browser: phone(), timezone: "Europe/London" });
    expect(ownersPhone.checks, JSON.stringify(ownersPhone.checks)).toMatchObject({ session_impossible_travel: false, device_count: 2 });
    expect(ownersPhone.verdict).toBe("allow");
    const later = Date.now() + 24 * 3600 * 1000;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => later);
    try {
      const login = await client("login", { user, ip: PROBE.abroad, browser: stranger, timezone: "Asia/Tokyo" });
      expect(login.checks, JSON.stringify(login.checks)).toMatchObject({
        is_new_fingerprint: true,
        is_new_ip: true,
        is_new_country: true,
        is_new_timezone: true,
        impossible_travel: false,
      });
      expect(login.verdict).toBe("challenge");
      expect(login.policy?.name).toBe("Verify unfamiliar logins");

      const owner = await client("login", { user, ip: PROBE.home, browser: home, timezone: "Europe/London" });
      expect(owner.checks, JSON.stringify(owner.checks)).toMatchObject({
        is_new_fingerprint: false,
        is_new_ip: false,
        impossible_travel: false,
      });
      expect(owner.verdict).toBe("allow");
    } finally {
      clock.mockRestore();
    }
  });
});

describeStores("addresses without a trusted proxy on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { CLIENT_RATE_LIMIT: "1000000" });
  });
  afterAll(async () => t?.close());

  it("X-Forwarded-For is ignored: two accounts from one connection count on its one address", async () => {
    const seed = `xff-${kind}`;
    const login = async (user: string, forwarded: string) => {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        headers: { "user-agent": BROWSER_UA, "x-forwarded-for": forwarded },
        payload: {
          client_id: t.clientId,
          user,
          signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx`, url: "https://app.example.com/" },
        },
      });
      expect(r.statusCode, r.body).toBe(200);
      const read = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
      return strict(Evaluation).parse(read.json());
    };
    const first = await login(`xff-a-${kind}`, "203.0.113.7");
    const second = await login(`xff-b-${kind}`, "198.51.100.9");
    expect(first.checks?.ip).toBe(second.checks?.ip);
    expect(second.checks?.ip).not.toBe("198.51.100.9");
    expect(second.checks?.ip_user_count).toBe(2);
  });
});
