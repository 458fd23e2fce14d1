// Identity is not trust (docs/identity.md, "Recognition and trust"), through the real HTTP API with the default
// policies on both stores. Any page a user visits can collect the user's FingerprintJS components, and the client id
// is public: a fingerprint may recognise a device for counting and linking, but only a visitor token the customer's
// backend vouched for (a consumed login or sign-up, a passed challenge, a valid user_token) makes a login familiar,
// and only a vouched request moves a device's token. Each attack beside the honest case that looks like it: a browser
// whose storage was cleared, a private window, a browser that drifted with its token. Codes travel over real SMTP.
import { DeviceList, Evaluation, IdentificationCompleteResponse, WebhookPayload } from "@tessera/sdk/contract";
import { userToken } from "@tessera/sdk/node";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";
import { eventually } from "./webhook-receiver.js";

type Wire = Record<string, { value: unknown }>;

interface Browser {
  components: Wire;
  token: string;
}

interface Request {
  user: string;
  ip: string;
  browser: Browser;
  timezone?: string;
  /** The backend's signature of `user` (identity verification). */
  user_token?: string;
}

// Residential addresses of the shipped data: homes in England, addresses in Tokyo; a VPN provider's exit (Datacamp,
// in Tokyo). One home per case, so that no case's addresses count in another's.
const HOMES = [
  "81.2.69.142",
  "92.48.100.160",
  "151.170.129.115",
  "77.99.91.106",
  "2.96.98.28",
  "2.126.2.136",
  "5.70.100.80",
  "31.49.19.59",
  "86.1.1.1",
  "86.3.1.1",
  "86.2.1.1",
];
const TOKYO = ["126.0.0.1", "158.211.189.85", "27.139.248.176", "60.32.0.1"];
const VPN = "89.187.160.1";
/** A home in England, and two VPN providers' exits (PacketHub in Rome, Datacamp in New York), for one case only. */
const HOME_OF_VPN_USER = "86.5.1.1";
const OWN_VPN = "45.10.157.20";
const OTHER_VPN = "2.26.157.20";
const ADMIN = "admin@example.com";
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

describeStores("identity is not trust on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  let seq = 0;
  // The clock runs on, moved ahead by each case: days pass between a sign-up and a trip without any waiting.
  let ahead = 0;
  const realNow = Date.now.bind(Date);
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp(kind, {
      TRUST_PROXY: "1",
      CLIENT_RATE_LIMIT: "1000000",
      CHALLENGE_IP_RATE_LIMIT: "1000000",
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Tessera <no-reply@test.local>",
    });
    expect(await t.services.repos.projects.updateSettings(t.project.id, { admin_email: ADMIN })).toBe(true);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + ahead);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
    await smtp?.close();
  });

  const id = (prefix: string) => `${prefix}-${kind}-${++seq}`;
  const browser = (): Browser => {
    const seed = id("browser");
    return { components: fakeComponents(seed), token: `tok-${seed}-xxxxxxxx` };
  };
  const newToken = (b: Browser): Browser => ({ components: b.components, token: `tok-${id("cleared")}-xxxxxxxx` });
  const env = () => t.project.environments.development.id;

  async function client(action: string, req: Request): Promise<Evaluation> {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": req.ip },
      payload: {
        client_id: t.clientId,
        user: req.user,
        ...(req.user_token ? { user_token: req.user_token } : {}),
        signals: {
          components: req.browser.components,
          visitor_token: req.browser.token,
          url: "https://app.example.com/",
          timezone: req.timezone ?? "Europe/London",
        },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    return strict(Evaluation).parse(read.json());
  }
  async function consume(ev: Evaluation): Promise<void> {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluations/${ev.id}/consume`, headers: t.auth });
    expect(r.statusCode, r.body).toBe(200);
  }
  /** The owner signs up at home; the backend consumes it and sets the account's email (where codes go). */
  async function owner(req: Request): Promise<Evaluation> {
    const ev = await client("signup", req);
    expect(ev.verdict).toBe("allow");
    await consume(ev);
    const update = await t.app.inject({
      method: "POST",
      url: `/v3/user/${req.user}/update`,
      headers: t.auth,
      payload: { email: `${req.user}@owner.example` },
    });
    expect(update.statusCode, update.body).toBe(204);
    return ev;
  }
  /** The owner passes the challenge with the code mailed to the account, and the backend consumes the evaluation. */
  async function pass(ev: Evaluation, user: string): Promise<void> {
    const link = new URL(ev.redirect ?? "");
    const c = link.searchParams.get("challenge") ?? "";
    const headers = { "x-challenge-token": link.searchParams.get("token") ?? "" };
    const since = smtp.mails.length;
    const sent = await t.app.inject({ method: "POST", url: `/v3/challenges/${c}/send`, headers, payload: { channel: "email" } });
    expect(sent.statusCode, sent.body).toBe(200);
    const code = codeFrom(await smtp.next(`${user}@owner.example`, { since }));
    const verified = await t.app.inject({ method: "POST", url: `/v3/challenges/${c}/verify`, headers, payload: { code } });
    expect(verified.statusCode, verified.body).toBe(200);
    const done = await t.app.inject({ method: "POST", url: `/v3/challenges/${c}/complete`, headers });
    expect(done.statusCode, done.body).toBe(200);
    await consume(ev);
  }
  /** The backend's own evaluation (secret key) of the browser whose client evaluation the page passed it. */
  async function backend(action: string, body: { user: string; ip: string; evaluation: string }): Promise<Evaluation> {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluate/${action}`, headers: t.auth, payload: body });
    expect(r.statusCode, r.body).toBe(200);
    return strict(Evaluation).parse(r.json());
  }
  const tokenOf = async (device: string | undefined) => (await t.services.repos.devices.find(env(), device ?? ""))?.visitor_token;
  const devicesOf = async (user: string) => {
    const r = await t.app.inject({ method: "GET", url: `/v3/user/${user}/devices`, headers: t.auth });
    expect(r.statusCode, r.body).toBe(200);
    return strict(DeviceList)
      .parse(r.json())
      .map((d) => d.id);
  };
  // An evaluation lists the risks detected: none listed is a low one.
  const sharing = (ev: Evaluation) => ev.risks?.find((r) => r.name === "account_sharing")?.severity ?? "low";
  const signals = async () =>
    (await t.services.repos.db.selectFrom("webhook_events").select("payload").where("event", "=", "account_sharing.signal").execute()).map(
      (r) => strict(WebhookPayload).parse(JSON.parse(r.payload)).account,
    );
  const adminMailsAbout = async (user: string) => {
    await eventually(async () => (await t.services.repos.jobs.pending()).length === 0, "the job outbox to drain");
    return smtp.mails.filter((m) => m.to === ADMIN && m.subject.includes(`Account ${user} `));
  };

  it("the victim's components and password on a new token, from another country, are challenged; the victim's device keeps its token", async () => {
    const [user, victim, home] = [id("victim"), browser(), HOMES[0] as string];
    const signup = await owner({ user, ip: home, browser: victim });
    ahead += 2 * DAY;
    // Any page the victim visits collects these components. The attacker primes on a page, then logs in: their own
    // clock, their own addresses, a visitor token of their own.
    const attacker = newToken(victim);
    const page = await client("access", { user, ip: TOKYO[0] as string, browser: attacker, timezone: "Asia/Tokyo" });
    const login = await client("login", { user, ip: TOKYO[0] as string, browser: attacker, timezone: "Asia/Tokyo" });
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({
      is_new_fingerprint: true,
      is_new_device: true,
      is_new_country: true,
    });
    expect(login.verdict).toBe("challenge");
    expect(login.policy?.name).toBe("Verify unfamiliar logins");
    // Recognised as the victim's device (counting, linking), never trusted as it: the token stays the victim's.
    expect([page.device, login.device]).toEqual([signup.device, signup.device]);
    expect(await tokenOf(signup.device)).toBe(victim.token);
    expect(await devicesOf(user)).toEqual([signup.device]);

    // Nor can the attacker's browser act as the victim's: the SDK's detach finds no device of its token.
    const detach = await t.app.inject({
      method: "POST",
      url: "/v3/client/devices/detach",
      headers: { "x-forwarded-for": TOKYO[0] as string },
      payload: { client_id: t.clientId, user, signals: { components: attacker.components, visitor_token: attacker.token } },
    });
    expect(detach.statusCode, detach.body).toBe(404);

    // The victim's own browser is as familiar as before.
    const back = await client("login", { user, ip: home, browser: victim });
    expect(back.checks).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    expect(back.verdict).toBe("allow");
    expect(back.device).toBe(signup.device);
  });

  it("the victim's components and password on a new token, through a VPN, are challenged; the victim's device keeps its token", async () => {
    const [user, victim] = [id("victim"), browser()];
    const signup = await owner({ user, ip: HOMES[1] as string, browser: victim });
    ahead += 2 * DAY;
    const attacker = newToken(victim);
    const login = await client("login", { user, ip: VPN, browser: attacker, timezone: "America/Chicago" });
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({ is_new_fingerprint: true, is_new_device: true, ip_is_vpn: true });
    expect(login.verdict).toBe("challenge");
    expect(await tokenOf(signup.device)).toBe(victim.token);
    // Not consumed (the backend saw a challenge): the VPN's place and zone are not the account's either.
    const again = await client("login", { user, ip: VPN, browser: attacker, timezone: "America/Chicago" });
    expect(again.checks).toMatchObject({ is_new_fingerprint: true, is_new_provider: true, is_new_timezone: true });
    expect(again.verdict).toBe("challenge");
  });

  it("the victim's components on a new token through a VPN are challenged even with the victim's own zone; the owner's browsers there are not", async () => {
    const [user, victim] = [id("victim"), browser()];
    const signup = await owner({ user, ip: HOMES[1] as string, browser: victim });
    ahead += 2 * DAY;
    // The zone is one of the components: a copy of the victim's browser is set to the victim's zone (Europe/London).
    const login = await client("login", { user, ip: VPN, browser: newToken(victim) });
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({
      is_new_fingerprint: true,
      is_recognised_device: true,
      is_new_timezone: false,
      ip_is_vpn: true,
    });
    expect(login.verdict).toBe("challenge");
    expect(login.reasons).toContain("recognised_device");
    expect(await tokenOf(signup.device)).toBe(victim.token);
    // The owner's own browser on another exit of their VPN is its owner.
    const own = await client("login", { user, ip: VPN, browser: victim });
    expect(own.checks).toMatchObject({ is_new_fingerprint: false, is_recognised_device: false });
    expect(own.verdict).toBe("allow");
    // So is the owner's new laptop there, set to the owner's zone: a new browser, not a copy of the owner's.
    const laptop = await client("login", { user, ip: VPN, browser: browser() });
    expect(laptop.checks).toMatchObject({ is_new_fingerprint: true, is_recognised_device: false });
    expect(laptop.verdict).toBe("allow");
  });

  it("the owner's private window through the VPN provider the account came through is let in; the victim's components through another are not", async () => {
    const [user, mine] = [id("owner"), browser()];
    await owner({ user, ip: HOME_OF_VPN_USER, browser: mine });
    ahead += DAY;
    // The owner's own browser through their VPN: the account comes through this provider from now on.
    const own = await client("login", { user, ip: OWN_VPN, browser: mine });
    expect(own.verdict).toBe("allow");
    ahead += DAY;
    const privateWindow = await client("login", { user, ip: OWN_VPN, browser: newToken(mine) });
    expect(privateWindow.checks, JSON.stringify(privateWindow.checks)).toMatchObject({
      is_new_fingerprint: true,
      is_recognised_device: true,
      is_new_provider: false,
      ip_is_vpn: true,
    });
    expect(privateWindow.verdict).toBe("allow");
    // A copy of the owner's browser through a provider the account never came through: challenged, zone and all.
    const copy = await client("login", { user, ip: OTHER_VPN, browser: newToken(mine) });
    expect(copy.checks, JSON.stringify(copy.checks)).toMatchObject({
      is_recognised_device: true,
      is_new_provider: true,
      is_new_timezone: false,
    });
    expect(copy.verdict).toBe("challenge");
    expect(copy.reasons).toContain("recognised_device");
  });

  it("the owner whose storage was cleared is the same device; let in at home, its new token is the device's once consumed", async () => {
    const [user, mine, home] = [id("owner"), browser(), HOMES[2] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    const cleared = newToken(mine);
    const login = await client("login", { user, ip: home, browser: cleared });
    // At home a browser the account has not vouched for yet meets nothing.
    expect(login.verdict).toBe("allow");
    expect(login.checks).toMatchObject({ is_new_fingerprint: true, is_new_ip: false });
    expect(login.device).toBe(signup.device);
    expect(await tokenOf(signup.device)).toBe(mine.token);
    await consume(login);
    expect(await tokenOf(signup.device)).toBe(cleared.token);

    ahead += DAY;
    const next = await client("login", { user, ip: TOKYO[1] as string, browser: cleared });
    expect(next.checks, JSON.stringify(next.checks)).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    expect(next.verdict).toBe("allow");
    expect(next.device).toBe(signup.device);
    // A private window works the same way: the normal window's token, the device's previous one, is still its own.
    const normal = await client("access", { user, ip: home, browser: mine });
    expect(normal.checks).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    expect(normal.device).toBe(signup.device);
  });

  it("the owner whose storage was cleared abroad passes the challenge, and is the same device, familiar from then on", async () => {
    const [user, mine] = [id("owner"), browser()];
    const signup = await owner({ user, ip: HOMES[3] as string, browser: mine });
    ahead += 2 * DAY;
    const cleared = newToken(mine);
    const login = await client("login", { user, ip: TOKYO[2] as string, browser: cleared });
    expect(login.verdict).toBe("challenge");
    expect(login.device).toBe(signup.device);
    await pass(login, user);
    expect(await tokenOf(signup.device)).toBe(cleared.token);

    ahead += HOUR;
    const next = await client("login", { user, ip: TOKYO[2] as string, browser: cleared });
    expect(next.checks, JSON.stringify(next.checks)).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    expect(next.verdict).toBe("allow");
    expect(next.device).toBe(signup.device);
    expect(await devicesOf(user)).toEqual([signup.device]);
  });

  it("the owner whose storage was cleared, opening pages only, is recognised through a drift and a second clearing, not yet trusted", async () => {
    const [user, mine, home] = [id("owner"), browser(), HOMES[9] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    const cleared = newToken(mine);
    expect((await client("access", { user, ip: home, browser: cleared })).device).toBe(signup.device);
    ahead += DAY;
    // A browser update: other components, the same (new) token.
    const updated = { ...cleared, components: { ...cleared.components, screenResolution: { value: [2560, 1440] } } };
    const page = await client("access", { user, ip: home, browser: updated });
    expect(page.device).toBe(signup.device);
    expect(page.fingerprint?.id).toBe(signup.fingerprint?.id);
    expect(page.checks).toMatchObject({ is_new_device: true, is_new_fingerprint: true });
    expect(await tokenOf(signup.device)).toBe(mine.token);
    // Cleared once more: found by the updated components.
    const again = { ...updated, token: newToken(updated).token };
    expect((await client("access", { user, ip: home, browser: again })).device).toBe(signup.device);
    // Its next sign-in, consumed, makes the token the device's.
    const login = await client("login", { user, ip: home, browser: again });
    expect(login.verdict).toBe("allow");
    await consume(login);
    expect(await tokenOf(signup.device)).toBe(again.token);
    expect((await client("access", { user, ip: home, browser: again })).checks).toMatchObject({
      is_new_device: false,
      is_new_fingerprint: false,
    });
  });

  it("a browser that only opened the owner's pages is recognised again after its storage is cleared, and stays off the account's list", async () => {
    const [user, mine, home] = [id("owner"), browser(), HOMES[9] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    // The owner's second browser: pages only (its session came from elsewhere), never signed in here.
    const second = browser();
    const first = await client("access", { user, ip: home, browser: second });
    expect(first.device).not.toBe(signup.device);
    const cleared = await client("access", { user, ip: home, browser: newToken(second) });
    expect(cleared.device).toBe(first.device);
    expect(cleared.checks).toMatchObject({ is_new_device: true });
    expect(await devicesOf(user)).toEqual([signup.device]);
  });

  it("the owner whose storage was cleared, mistyping the login first, is still recognised as its device, through a drift too", async () => {
    const [user, mine, home] = [id("owner"), browser(), HOMES[10] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    const cleared = newToken(mine);
    expect((await client("access", { user, ip: home, browser: cleared })).device).toBe(signup.device);
    // A mistyped login first: an account never met gets a device of this token of its own.
    const slip = await client("login", { user: `${user}x`, ip: home, browser: cleared });
    expect(slip.device).not.toBe(signup.device);
    const login = await client("login", { user, ip: home, browser: cleared });
    expect(login.device).toBe(signup.device);
    ahead += DAY;
    const docked = { ...cleared, components: { ...cleared.components, screenResolution: { value: [2560, 1440] } } };
    const page = await client("access", { user, ip: home, browser: docked });
    expect([page.device, page.fingerprint?.id]).toEqual([signup.device, signup.fingerprint?.id]);
  });

  it("a stranger's chain of drifts of the owner's copied components, naming the account, moves nothing the owner's token vouches for", async () => {
    // A recognised device's record follows its browser's drift (docs/decisions/recognised-device-follows-drift.md), so
    // a stranger who collected the owner's components can walk the record away from them, one drift per fresh token.
    // The owner's own browser, on the token the backend vouched for, stays its familiar device whatever the record says.
    const [user, mine, home] = [id("owner"), browser(), HOMES[4] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    // What changes on one machine (a dock, another monitor), never a stable trait (fingerprint/reid.ts).
    const drifts: Array<Record<string, unknown>> = [
      { screenResolution: { value: [2560, 1440] } },
      { screenResolution: { value: [3440, 1440] } },
      { screenResolution: { value: [1920, 1200] } },
    ];
    let forged = mine.components;
    for (const change of drifts) {
      forged = { ...forged, ...change } as Wire;
      const step = await client("login", { user, ip: home, browser: { components: forged, token: newToken(mine).token } });
      expect(step.checks, JSON.stringify(step.checks)).toMatchObject({ is_new_device: true, is_new_fingerprint: true });
      // Recognised as the owner's device (for counting), its record walked to these components.
      expect([step.device, step.fingerprint?.id]).toEqual([signup.device, signup.fingerprint?.id]);
    }
    const back = await client("login", { user, ip: home, browser: mine });
    expect(back.checks, JSON.stringify(back.checks)).toMatchObject({ is_new_device: false, is_new_fingerprint: false });
    expect(back.verdict).toBe("allow");
    expect(back.device).toBe(signup.device);
    expect(await tokenOf(signup.device)).toBe(mine.token);
  });

  it("the backend's evaluation of a login whose client evaluation only recognised the victim's device is a new browser's; nothing of it becomes the victim's", async () => {
    // The backend evaluates the login itself (its secret), reusing the device of the client evaluation the page passed
    // it. That client evaluation found the victim's device by the copied components only: the backend checked the
    // password, not that this browser is the victim's.
    const [user, victim] = [id("victim"), browser()];
    const signup = await owner({ user, ip: HOMES[6] as string, browser: victim });
    ahead += 2 * DAY;
    const attacker = newToken(victim);
    const page = await client("login", { user, ip: TOKYO[0] as string, browser: attacker, timezone: "Asia/Tokyo" });
    expect(page.device).toBe(signup.device);
    const login = await backend("login", { user, ip: TOKYO[0] as string, evaluation: page.id });
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({
      is_new_device: true,
      is_new_fingerprint: true,
      is_new_country: true,
    });
    expect(login.verdict).toBe("challenge");
    expect(login.device).toBe(signup.device);
    // Nothing the request said was written on the victim's device, and Japan is not the account's.
    const device = await t.services.repos.devices.find(env(), signup.device ?? "");
    expect([device?.visitor_token, device?.last_ip]).toEqual([victim.token, HOMES[6]]);
    const again = await client("login", { user, ip: TOKYO[1] as string, browser: browser(), timezone: "Asia/Tokyo" });
    expect(again.checks).toMatchObject({ is_new_country: true });
    expect(again.verdict).toBe("challenge");
    // The owner's own browser is as familiar as before.
    const back = await client("login", { user, ip: HOMES[6] as string, browser: victim });
    expect(back.checks).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    // The owner whose storage was cleared, at home: let in, and the backend's evaluation vouches for the browser, whose
    // token the device takes.
    const cleared = newToken(victim);
    const mine = await client("access", { user, ip: HOMES[6] as string, browser: cleared });
    const vouched = await backend("login", { user, ip: HOMES[6] as string, evaluation: mine.id });
    expect(vouched.checks).toMatchObject({ is_new_device: true, identity_verified: true });
    expect(vouched.verdict).toBe("allow");
    expect(await tokenOf(signup.device)).toBe(cleared.token);
    expect((await client("login", { user, ip: HOMES[6] as string, browser: cleared })).checks).toMatchObject({ is_new_fingerprint: false });
  });

  it("the backend's evaluation of the attacker's own account, linked to a client evaluation that recognised the victim's device, leaves that device the victim's", async () => {
    const [user, victim, mine] = [id("victim"), browser(), id("attacker")];
    const signup = await owner({ user, ip: HOMES[7] as string, browser: victim });
    await owner({ user: mine, ip: TOKYO[2] as string, browser: browser() });
    ahead += 2 * DAY;
    // The attacker's page names the victim with the victim's components on a token of its own; the attacker then signs
    // into their own account, and the backend evaluates that login with the client evaluation the page passed it.
    const page = await client("access", { user, ip: TOKYO[2] as string, browser: newToken(victim), timezone: "Asia/Tokyo" });
    expect(page.device).toBe(signup.device);
    const login = await backend("login", { user: mine, ip: TOKYO[2] as string, evaluation: page.id });
    expect(login.device).not.toBe(signup.device);
    expect(await devicesOf(user)).toEqual([signup.device]);
    expect(await devicesOf(mine)).not.toContain(signup.device);
    const device = await t.services.repos.devices.find(env(), signup.device ?? "");
    expect([device?.visitor_token, device?.last_ip]).toEqual([victim.token, HOMES[7]]);
    const back = await client("login", { user, ip: HOMES[7] as string, browser: victim });
    expect(back.checks).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    expect(back.device).toBe(signup.device);
  });

  it("a legacy identification of the victim's components on a new token is a new device when completed; for another account the victim's device stays the victim's", async () => {
    const [user, victim, mine] = [id("victim"), browser(), id("attacker")];
    const signup = await owner({ user, ip: HOMES[8] as string, browser: victim });
    ahead += 2 * DAY;
    // The legacy flow: the SDK's identify() names the account, the backend completes the identification with the
    // account it signed in (docs/server-api.md). The components are the victim's, the token the attacker's.
    const identify = async (as: string) => {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/identify",
        headers: { "x-forwarded-for": TOKYO[3] as string },
        payload: { client_id: t.clientId, user: as, signals: { components: victim.components, visitor_token: newToken(victim).token } },
      });
      expect(r.statusCode, r.body).toBe(200);
      return r.json().identification_id as string;
    };
    const complete = async (identification: string, account: string) => {
      const r = await t.app.inject({
        method: "POST",
        url: `/v2/proj/identification/${identification}/complete`,
        headers: t.auth,
        payload: { account },
      });
      expect(r.statusCode, r.body).toBe(200);
      return strict(IdentificationCompleteResponse).parse(r.json());
    };
    // Completed for the victim's account (the backend checked the password, as for the owner whose storage was
    // cleared): the browser is new to it, and the device takes its token, as a consumed login's does.
    const first = await identify(user);
    const done = await complete(first, user);
    expect([done.new_device, done.device]).toEqual([true, signup.device]);
    expect(await tokenOf(signup.device)).not.toBe(victim.token);
    // Completed for the attacker's own account: the victim's device is not moved to it.
    await owner({ user: mine, ip: TOKYO[3] as string, browser: browser() });
    const other = await complete(await identify(user), mine);
    expect(other.new_device).toBe(true);
    expect(other.device).not.toBe(signup.device);
    expect(await devicesOf(user)).toContain(signup.device);
    expect(await devicesOf(mine)).not.toContain(signup.device);
    const device = await t.services.repos.devices.find(env(), signup.device ?? "");
    expect([device?.user_id, device?.status]).toEqual([(await t.services.repos.users.findByExternal(env(), user))?.id, "attached"]);
  });

  it("a stranger's sign-up naming the account, let in and never consumed, leaves its browser a new device to the account", async () => {
    const [user, mine, home] = [id("victim"), browser(), HOMES[9] as string];
    await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    // The client id is public: a sign-up form's call naming an existing account is let in (no login policy applies),
    // and the backend, which knows the account exists, never consumes it.
    const stranger = browser();
    const signup = await client("signup", { user, ip: TOKYO[1] as string, browser: stranger, timezone: "Asia/Tokyo" });
    expect(signup.verdict).toBe("allow");
    const login = await client("login", { user, ip: TOKYO[1] as string, browser: stranger, timezone: "Asia/Tokyo" });
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({ is_new_device: true, is_new_fingerprint: true });
    // The owner's new laptop, once the backend consumed its login, is the account's device from its next request.
    const laptop = browser();
    const first = await client("login", { user, ip: home, browser: laptop });
    expect(first.verdict).toBe("allow");
    await consume(first);
    expect((await client("login", { user, ip: home, browser: laptop })).checks).toMatchObject({ is_new_device: false });
  });

  it("a token recognised on the owner's pages-only browser, naming another account, is never that browser's device", async () => {
    const [user, mine, home, theirs] = [id("owner"), browser(), HOMES[10] as string, id("attacker")];
    await owner({ user, ip: home, browser: mine });
    // The owner's second browser opens pages only (its session came from elsewhere): a device nobody owns, on which the
    // account was named.
    const second = browser();
    const pages = await client("access", { user, ip: home, browser: second });
    ahead += DAY;
    // A stranger presents its components on a token of their own, naming the owner: recognised as that browser.
    const copy = newToken(second);
    expect((await client("access", { user, ip: TOKYO[3] as string, browser: copy, timezone: "Asia/Tokyo" })).device).toBe(pages.device);
    // Then, on that token, the stranger signs into their own account, and the backend consumes it.
    await owner({ user: theirs, ip: TOKYO[3] as string, browser: browser() });
    const login = await client("login", { user: theirs, ip: TOKYO[3] as string, browser: copy, timezone: "Asia/Tokyo" });
    expect(login.device).not.toBe(pages.device);
    expect(login.verdict).toBe("allow");
    await consume(login);
    const device = await t.services.repos.devices.find(env(), pages.device ?? "");
    expect([device?.user_id, device?.visitor_token]).toEqual([null, second.token]);
    expect(await devicesOf(theirs)).not.toContain(pages.device);
  });

  it("a browser that drifted and kept its token stays familiar, abroad too", async () => {
    const [user, mine] = [id("owner"), browser()];
    const signup = await owner({ user, ip: HOMES[4] as string, browser: mine });
    ahead += 2 * DAY;
    // Docked to a monitor: another screen, the same browser and token.
    const docked = { ...mine, components: { ...mine.components, screenResolution: { value: [2560, 1440] } } };
    const login = await client("login", { user, ip: TOKYO[3] as string, browser: docked });
    expect(login.fingerprint?.confidence).toBeLessThan(1);
    expect(login.checks, JSON.stringify(login.checks)).toMatchObject({ is_new_fingerprint: false, is_new_device: false });
    expect(login.verdict).toBe("allow");
    expect(login.device).toBe(signup.device);
  });

  it("the owner's browser whose storage was cleared, with the backend's user_token, is the device's at once; without, it is not", async () => {
    const secret = (await t.services.identity.rotate(t.project.id, "development")) ?? "";
    const [user, mine, home] = [id("owner"), browser(), HOMES[8] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    const cleared = newToken(mine);
    const unsigned = await client("access", { user, ip: home, browser: cleared });
    expect(unsigned.checks).toMatchObject({ identity_verified: false, is_new_device: true });
    expect(await tokenOf(signup.device)).toBe(mine.token);
    const signed = await client("access", { user, ip: home, browser: cleared, user_token: await userToken(secret, user) });
    expect(signed.checks).toMatchObject({ identity_verified: true });
    expect(signed.device).toBe(signup.device);
    expect(await tokenOf(signup.device)).toBe(cleared.token);
    expect((await client("access", { user, ip: home, browser: cleared })).checks).toMatchObject({ is_new_device: false });

    // The SDK's attach with the backend's user_token vouches for the browser the same way.
    const again = newToken(mine);
    const attach = await t.app.inject({
      method: "POST",
      url: "/v3/client/devices/attach",
      headers: { "x-forwarded-for": home },
      payload: {
        client_id: t.clientId,
        user,
        user_token: await userToken(secret, user),
        signals: { components: again.components, visitor_token: again.token },
      },
    });
    expect(attach.statusCode, attach.body).toBe(200);
    expect(attach.json().device).toBe(signup.device);
    expect(await tokenOf(signup.device)).toBe(again.token);
  });

  it("a stranger's page view naming an account adds no device to it; a login that lets the owner in does", async () => {
    const [user, mine, home] = [id("owner"), browser(), HOMES[5] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += DAY;
    // Near the owner's home while the owner is away: nothing asks the stranger anything.
    const near = await client("access", { user, ip: HOMES[6] as string, browser: browser() });
    expect(near.verdict).toBe("allow");
    expect(await devicesOf(user)).toEqual([signup.device]);
    // The owner's new laptop, signed in at home: the account's second device.
    const laptop = await client("login", { user, ip: home, browser: browser() });
    expect(laptop.verdict).toBe("allow");
    await consume(laptop);
    expect((await devicesOf(user)).sort()).toEqual([signup.device, laptop.device].sort());
  });

  it("a stranger's page view naming an account while its owner reads at home rates no sharing risk, signals nothing, emails no one", async () => {
    const [user, mine, home] = [id("owner"), browser(), HOMES[7] as string];
    const signup = await owner({ user, ip: home, browser: mine });
    ahead += 2 * DAY;
    expect((await client("access", { user, ip: home, browser: mine })).verdict).toBe("allow");
    const far = await client("access", { user, ip: TOKYO[0] as string, browser: browser(), timezone: "Asia/Tokyo" });
    // The sharing policy still asks the owner (the code goes to the owner's address), but nothing says "shared".
    expect(far.checks).toMatchObject({ session_impossible_travel: true, is_new_device: true });
    expect(far.verdict).toBe("challenge");
    expect(["low", "medium"]).toContain(sharing(far));
    expect(await signals()).not.toContain(user);
    expect(await adminMailsAbout(user)).toEqual([]);
    expect(await devicesOf(user)).toEqual([signup.device]);
  });

  it("the owner's signed-in devices, used at once on four networks, still signal sharing and email the admin once", async () => {
    const user = id("sharer");
    // Four browsers, each signed in (a login let in and consumed), each on a network of its own (no place involved). A
    // login is measured once the backend vouched for its browser: its next request.
    const members = Array.from({ length: 4 }, (_, i) => ({ browser: browser(), ip: `10.66.${i}.1` }));
    ahead += DAY;
    for (const m of members) {
      const login = await client("login", { user, ...m });
      expect(login.verdict, JSON.stringify(login.checks)).toBe("allow");
      expect(["low", "medium"]).toContain(sharing(login));
      await consume(login);
    }
    // Their page views are the account's sessions: four devices in use at once on four networks.
    const views: Evaluation[] = [];
    for (const m of members) views.push(await client("access", { user, ...m }));
    for (const v of views) expect(["high", "maximum"]).toContain(sharing(v));
    expect((await signals()).filter((a) => a === user)).toHaveLength(1);
    // A stranger's page view in between is not the account's: the next signed-in one is no new rise.
    await client("access", { user, ip: "10.67.0.1", browser: browser() });
    expect(["high", "maximum"]).toContain(sharing(await client("access", { user, ...(members[0] as (typeof members)[number]) })));
    expect((await signals()).filter((a) => a === user)).toHaveLength(1);
    const mails = await adminMailsAbout(user);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text).toMatch(/account-sharing risk of account .* (high|maximum)/);
  });

  // A household's shared computer holds the accounts of the members who have no device of their own. Once each member
  // was let in on it (a sign-up or login the backend consumed, a passed challenge), the computer is that member's device,
  // and its five accounts say nothing against the member (docs/detection.md, "Account-independent login rules and
  // fingerprint churn"). A stranger holds no such token: the same computer naming an account it was never let in on,
  // or a copy of its components on another token naming a member, is still a browser five accounts used.
  it("a household's shared computer five members were let in on lets each back in; naming a sixth account, or copied, it is challenged", async () => {
    const [home, shared] = ["10.70.0.1", browser()];
    const members = Array.from({ length: 5 }, () => id("member"));
    const [m0, m1, m2, m3, m4] = members as [string, string, string, string, string];
    // Three sign up on the shared computer, two on phones of their own; then those two log in on the computer.
    for (const user of [m0, m1, m2]) await owner({ user, ip: home, browser: shared });
    for (const user of [m3, m4]) await owner({ user, ip: home, browser: browser() });
    ahead += 2 * HOUR;
    const fourth = await client("login", { user: m3, ip: home, browser: shared });
    expect(fourth.verdict, JSON.stringify(fourth.checks)).toBe("allow");
    await consume(fourth);
    ahead += 2 * HOUR;
    // The fifth account on one browser, new to it: a code to its owner, once.
    const fifth = await client("login", { user: m4, ip: home, browser: shared });
    expect(fifth.checks, JSON.stringify(fifth.checks)).toMatchObject({ device_user_count: 5, is_new_device: true });
    expect(fifth.verdict).toBe("challenge");
    expect(fifth.policy?.name).toBe("Verify logins that cycle through accounts");
    await pass(fifth, m4);

    // From then on every member is let in on it, evening after evening.
    for (const user of members) {
      ahead += 2 * HOUR;
      const back = await client("login", { user, ip: home, browser: shared });
      expect(back.checks, JSON.stringify(back.checks)).toMatchObject({ device_user_count: 5, is_new_device: false });
      expect(back.verdict, `${user}: ${JSON.stringify(back.checks)}`).toBe("allow");
      await consume(back);
    }

    // The same computer naming an account it was never let in on (signed up elsewhere): challenged.
    const other = id("neighbour");
    await owner({ user: other, ip: "10.70.1.1", browser: browser() });
    ahead += 2 * HOUR;
    const sixth = await client("login", { user: other, ip: home, browser: shared });
    expect(sixth.checks).toMatchObject({ is_new_device: true });
    expect(sixth.verdict, JSON.stringify(sixth.checks)).toBe("challenge");
    // The computer's components, collected by another page, on a stranger's token naming a member: challenged.
    ahead += 2 * HOUR;
    const copy = await client("login", { user: m1, ip: "10.70.2.1", browser: newToken(shared) });
    expect(copy.checks).toMatchObject({ is_new_device: true });
    expect(copy.checks?.fingerprint_user_count).toBeGreaterThanOrEqual(5);
    expect(copy.verdict, JSON.stringify(copy.checks)).toBe("challenge");
  });
});
