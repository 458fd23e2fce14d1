// Challenges end to end ("End-to-end tests"): a real server, a real SMTP server on loopback whose received
// mails give the codes, Chromium through playwright-core, a customer site on another origin.
// 1. login challenged → hosted app → email code from the mail → completed → success URL → the customer backend
//    consumes a completed challenge; a replay of the success URL gets 409.
// 2. five wrong codes → failed, "Too many attempts" on screen; an expired code is refused (short code lifetime).
// 3. account sharing: one user on three devices, limit 1 → access challenge → owner kicks two → completes → a
//    kicked device's `on_logout` fires at its next `evaluate.access`, or by itself with the SDK's heartbeat.
// 4. Arabic renders right to left; axe-core finds no violation on any screen; screenshots in e2e/artifacts/.
// Plus the demo site's round trip. Every browser is "human" (no automation flag, a real user agent) so the default
// policies stay out of the way; the test policies match their own users only, at a priority above the defaults.
// Each test sets up its own state (its own users, and a browser of its own where a device's history matters) and
// leaves the server as it found it, so any one of them runs alone (`-t`) or in any order.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ApiError, Client } from "../sdk/src/node/index.js";
import { codeFrom, startSmtp, type TestSmtp } from "../server/test/smtp.js";
import { type Browser, type BrowserOptions, launchBrowser, screenshot } from "./helpers/browser.js";
import { type ChallengeSite, startChallengeSite } from "./helpers/challenge-site.js";
import { type RunningServer, startServer } from "./helpers/server.js";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core"), "utf8");

/**
 * Distinct devices. Every fresh headless profile on this machine otherwise gives the same fingerprint, and the
 * server's drift matching rightly takes a new user agent, window, locale and time zone on the same hardware for
 * the same browser: the others also differ in what the server keys hardware on (touch support, WebGL).
 */
const DEVICES: BrowserOptions[] = [
  {
    // Linux, as the machine is: a Windows user agent over Linux client hints and platform is what a forged one looks
    // like to the server (docs/detection.md), and "human" browsers must look human.
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    viewport: { width: 1280, height: 800 },
    locale: "en-US",
    timezoneId: "America/New_York",
  },
  {
    userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    viewport: { width: 412, height: 915 },
    locale: "fr-FR",
    timezoneId: "Europe/Paris",
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 2.625,
  },
  {
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36",
    viewport: { width: 1366, height: 768 },
    locale: "es-ES",
    timezoneId: "Europe/Madrid",
    args: ["--disable-3d-apis"],
  },
].map((d) => ({ ...d, human: true }));

/** A fourth kind of hardware: touch without WebGL (the three above are desktop, touch + WebGL, desktop without WebGL). */
const TABLET: BrowserOptions = {
  userAgent: "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  viewport: { width: 800, height: 1280 },
  locale: "en-GB",
  timezoneId: "Europe/London",
  hasTouch: true,
  isMobile: true,
  args: ["--disable-3d-apis"],
  human: true,
};

let server: RunningServer;
let smtp: TestSmtp;
let site: ChallengeSite;
let client: Client;
let main: Browser;
const browsers: Browser[] = [];

async function api(method: string, path: string, body?: unknown): Promise<Response> {
  const secret = server.project.environments.development.secret;
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

async function createPolicy(policy: Record<string, unknown>): Promise<void> {
  const r = await api("POST", "/v3/policies", { priority: 1000, ...policy });
  expect(r.status, await r.clone().text()).toBe(201);
}

beforeAll(async () => {
  smtp = await startSmtp();
  // Every browser comes from 127.0.0.1: lift the per-IP challenge limit (the per-challenge one still applies).
  server = await startServer({ SMTP_URL: smtp.url, EMAIL_FROM: "Tessera <no-reply@test.local>", CHALLENGE_IP_RATE_LIMIT: "100000" });
  const dev = server.project.environments.development;
  client = new Client(dev.secret, { baseUrl: server.url });
  site = await startChallengeSite({ url: server.url, clientId: dev.client_id, secret: dev.secret });
  await createPolicy({
    name: "Verify these logins (e2e)",
    actions: ["login"],
    conditions: { check: "user_id", op: "in", value: ["ada", "carl", "rana", "dora"] },
    verdict: "challenge",
    // Email and text: a user with both chooses; a user with an email only is sent the code without a choice.
    challenge: { type: "account_takeover", channels: ["email", "text"], success_url: `${site.url}welcome` },
  });
  await createPolicy({
    name: "Sharing (e2e)",
    actions: ["access"],
    conditions: {
      all: [
        { check: "user_id", op: "in", value: ["sam", "nina"] },
        { check: "device_count", op: "gt", value: 1 },
      ],
    },
    verdict: "challenge",
    challenge: { type: "account_sharing", channels: ["email"], device_limit: 1, success_url: `${site.url}welcome` },
  });
  // The demo site's user: no success URL, so the app returns to the page the login started from.
  await createPolicy({
    name: "Demo login (e2e)",
    actions: ["login"],
    conditions: { check: "user_id", op: "eq", value: "demo_user" },
    verdict: "challenge",
    challenge: { type: "account_takeover", channels: ["email"] },
  });
  main = await launchBrowser(DEVICES[0]);
  browsers.push(main);
});

afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => undefined);
  await site?.close();
  await server?.dispose();
  await smtp?.close();
});

const title = (page: Page) => page.locator("#screen-title");
const noticeError = (page: Page) => page.locator("#notice-error");

/** Waits for the screen whose heading is `heading`. */
async function onScreen(page: Page, heading: string | RegExp): Promise<void> {
  await expect
    .poll(
      async () =>
        (await title(page)
          .textContent()
          .catch(() => null)) ?? "",
      { timeout: 20_000 },
    )
    .toMatch(typeof heading === "string" ? new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) : heading);
}

/** Screenshot into e2e/artifacts/ and an axe-core pass over the whole document: no violations allowed. */
async function audit(page: Page, name: string): Promise<void> {
  await screenshot(page, `challenge-${name}`);
  // The app's CSP (script-src 'self') refuses an inline script tag; evaluating the source through the DevTools
  // protocol is not subject to it.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  };
  const violations = result.violations.map((v) => `${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(violations, `axe on ${name}`).toEqual([]);
}

/**
 * Keeps the app on its done screen: the automatic return to the customer's success page is answered 204 (the
 * browser stays where it is), so the done screen can be checked; `leave()` then follows the screen's own link.
 */
async function stayOnDone(page: Page): Promise<{ redirected: Promise<string>; leave(): Promise<void> }> {
  const pattern = `${site.url}welcome*`;
  let reached!: (url: string) => void;
  const redirected = new Promise<string>((r) => {
    reached = r;
  });
  await page.route(pattern, async (route) => {
    reached(route.request().url());
    await route.fulfill({ status: 204 });
  });
  return {
    redirected,
    leave: async () => {
      await page.unroute(pattern);
      await page.locator("a.button.primary").click();
    },
  };
}

/**
 * With one place to send the code (an email only), the intro says where and its button sends it: there is no choice
 * screen. Returns the code read from the received mail.
 */
async function sendFromIntro(page: Page, to: string, masked: RegExp, codeHeading = "Enter your code"): Promise<string> {
  await expect.poll(() => page.locator("#send-to").textContent()).toMatch(masked);
  expect(await page.getByRole("radio").count()).toBe(0);
  const since = smtp.mails.length;
  await page.getByRole("button", { name: "Send code" }).click();
  await onScreen(page, codeHeading);
  return codeFrom(await smtp.next(to, { since }));
}

/** Sends the code by email from the channel screen and returns the code read from the received mail. */
async function sendEmailCode(page: Page, to: string, codeHeading = "Enter your code"): Promise<string> {
  const since = smtp.mails.length;
  await page.getByRole("radio").first().check();
  await page.locator("form button[type=submit]").click();
  await onScreen(page, codeHeading);
  const mail = await smtp.next(to, { since });
  return codeFrom(mail);
}

function otherCode(code: string): string {
  return code === "000000" ? "111111" : "000000";
}

describe("hosted challenge end to end", () => {
  it("1. a challenged login goes through the hosted app with the mailed code and back; the backend consumes it once", async () => {
    const page = await main.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${site.url}login?user=ada&email=ada@example.com&phone=%2B33612345678`);
    // The customer's page follows `redirect` into the hosted app on the Tessera origin.
    await page.waitForURL(/\/challenge\/\?challenge=/);
    const challengeUrl = new URL(page.url());
    const challengeId = challengeUrl.searchParams.get("challenge") ?? "";
    expect(challengeUrl.origin).not.toBe(new URL(site.url).origin);
    await onScreen(page, "Confirm it’s you");
    // A way back to the customer's page (the one the login started on), on every screen but the last ones.
    expect(await page.locator("a.back").textContent()).toBe("Back to e2e");
    expect(await page.locator("a.back").getAttribute("href")).toBe(`${site.url}login?user=ada&email=ada@example.com&phone=%2B33612345678`);
    await audit(page, "en-intro");
    await page.getByRole("button", { name: "Continue" }).click();

    // Two places to send the code: a choice.
    await onScreen(page, "Where should we send your code?");
    await expect.poll(() => page.getByRole("radio", { name: /^Email to \u2066?a\*+@example\.com\u2069?$/u }).count()).toBe(1);
    expect(await page.getByRole("radio").count()).toBe(2);
    await audit(page, "en-channel");
    const code = await sendEmailCode(page, "ada@example.com");
    expect(await page.locator("#code-hint").textContent()).toMatch(/a\*\*@example\.com.*\. It is valid for 10 minutes\.$/u);
    // A proper one-time-code field: the phone's keyboard shows digits and offers the code from the message.
    const field = page.locator("#code");
    expect(await field.getAttribute("autocomplete")).toBe("one-time-code");
    expect(await field.getAttribute("inputmode")).toBe("numeric");
    expect(await page.locator("a.back").count()).toBe(1);
    await audit(page, "en-code");
    expect((await client.getChallenge(challengeId)).status).toBe("code_sent");

    const success = await stayOnDone(page);
    // Typed like a person: the sixth digit submits.
    await page.locator("#code").pressSequentially(code);
    await onScreen(page, "You’re verified");
    // The app sent the browser back to the success URL by itself, with the evaluation id.
    expect(await success.redirected).toMatch(new RegExp(`^${site.url}welcome\\?evaluation=ev_`));
    await audit(page, "en-done");
    await success.leave();

    await page.waitForURL(`${site.url}welcome?evaluation=*`);
    const evaluation = new URL(page.url()).searchParams.get("evaluation") ?? "";
    expect(evaluation).toMatch(/^ev_/);
    await expect.poll(() => page.locator("#status").textContent()).toBe("challenge completed");
    await screenshot(page, "challenge-en-success-page");
    expect(site.consumed.at(-1)).toEqual({ evaluation, status: 200, challengeStatus: "completed" });

    // The same success URL again: the customer backend's second consume is refused.
    await page.reload();
    await expect.poll(() => page.locator("#status").textContent()).toBe("refused 409 already_consumed");
    expect(site.consumed.at(-1)).toMatchObject({ evaluation, status: 409, code: "already_consumed" });
    const replay = await client.consumeEvaluation(evaluation).catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(ApiError);
    expect(replay).toMatchObject({ status: 409 });

    const challenge = await client.getChallenge(challengeId);
    expect(challenge).toMatchObject({ status: "completed", email_verified: true, verify_attempts: 1, channels: ["email"] });
    expect(challenge.user?.id).toBe("ada");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("3. account sharing: the owner kicks two devices, completes, and the kicked devices' on_logout fires", async () => {
    // Two other devices of "sam", each with the customer's page open (SDK loaded, on_logout registered); the second
    // with the SDK's heartbeat at its fastest, every 2 s.
    const others: Page[] = [];
    for (const [i, options] of DEVICES.slice(1).entries()) {
      const b = await launchBrowser(options);
      browsers.push(b);
      const p = await b.newPage();
      await p.goto(`${site.url}app?user=sam&email=sam@example.com${i === 1 ? "&heartbeat=2000" : ""}`);
      await expect.poll(() => p.locator("#out").textContent(), { timeout: 20_000 }).toMatch(/^ready ev_/);
      others.push(p);
    }
    const attachedBefore = await client.getUserDevices("sam");
    expect(attachedBefore.filter((d) => d.status === "attached")).toHaveLength(2);

    // The owner's device: the third one; `evaluate.access` navigates to the challenge by itself.
    const owner = await main.newPage();
    await owner.goto(`${site.url}app?user=sam&email=sam@example.com`);
    await expect.poll(() => owner.locator("#out").textContent(), { timeout: 20_000 }).toMatch(/^ready ev_/);
    await owner.locator("#access").click();
    await owner.waitForURL(/\/challenge\/\?challenge=/);
    const challengeId = new URL(owner.url()).searchParams.get("challenge") ?? "";
    await onScreen(owner, "Too many devices on this account");
    expect(await owner.locator("main").textContent()).toContain("Up to 1 device is allowed per account.");
    await audit(owner, "en-sharing-intro");
    const code = await sendFromIntro(owner, "sam@example.com", /^We will send a one-time code to \u2066s\*+@example\.com\u2069\.$/u);
    await owner.locator("#code").fill(code);

    await onScreen(owner, "Log out the devices you don’t use");
    const rows = owner.locator("li.device");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await owner.locator("main").textContent()).toContain("Log out 2 more devices to continue.");
    await expect.poll(() => owner.locator("li.device", { hasText: "This device" }).count()).toBe(1);
    expect(await owner.locator("#continue").isDisabled()).toBe(true);
    await audit(owner, "en-devices-over");

    // Kick the two other devices through the UI (their rows name the browser and OS from the user agents).
    await owner.getByRole("button", { name: /^Log out Chrome on Android/ }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => owner.locator("[role=status]").first().textContent()).toMatch(/was logged out\.$/);
    await owner.getByRole("button", { name: /^Log out Chrome on Linux/ }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await owner.locator("main").textContent()).toContain("You are within the limit. You can continue.");
    await audit(owner, "en-devices-within");

    const success = await stayOnDone(owner);
    await owner.locator("#continue").click();
    await onScreen(owner, "You’re verified");
    await success.redirected;
    await success.leave();
    await owner.waitForURL(`${site.url}welcome?evaluation=*`);
    await expect.poll(() => owner.locator("#status").textContent()).toBe("challenge completed");
    expect((await client.getChallenge(challengeId)).status).toBe("completed");
    const attachedAfter = (await client.getUserDevices("sam")).filter((d) => d.status === "attached");
    expect(attachedAfter).toHaveLength(1);

    // The kicked device with the heartbeat hears of it by itself, without anyone touching the page.
    await expect.poll(() => others[1]!.locator("#session").textContent(), { timeout: 10_000 }).toBe("logged out by Tessera");
    expect(await others[1]!.locator("#access-out").textContent()).toBe("none");
    // The one without asks for access again: its SDK calls the app's on_logout then.
    const kicked = others[0]!;
    expect(await kicked.locator("#session").textContent()).toBe("active");
    await kicked.locator("#access").click();
    await expect.poll(() => kicked.locator("#session").textContent(), { timeout: 20_000 }).toBe("logged out by Tessera");
    // It stays on the customer's page (the SDK does not go on to a challenge for a user it just logged out).
    await expect.poll(() => kicked.locator("#access-out").textContent()).toMatch(/^(challenged|done) ev_/);
    expect(kicked.url()).toMatch(new RegExp(`^${site.url}app\\?`));
    await screenshot(kicked, "challenge-kicked-device-logged-out");
    await owner.close();
  });

  it("3b. a new device over the limit counts as the server counts it: log out one more, then Continue completes", async () => {
    // nina's first device: a desktop Chrome on Linux of her own (DEVICES[0], a browser of this test: no state from
    // another test), signed in on the customer's app, so attached to her.
    const own = await launchBrowser(DEVICES[0]);
    browsers.push(own);
    const first = await own.newPage();
    await first.goto(`${site.url}app?user=nina&email=nina@example.com`);
    await expect.poll(() => first.locator("#out").textContent(), { timeout: 20_000 }).toMatch(/^ready ev_/);
    expect((await client.getUserDevices("nina")).filter((d) => d.status === "attached")).toHaveLength(1);

    // A tablet she never used opens the paid content first: two devices for a limit of one.
    const b = await launchBrowser(TABLET);
    browsers.push(b);
    const tablet = await b.newPage();
    await tablet.goto(`${site.url}paid?user=nina`);
    await tablet.waitForURL(/\/challenge\/\?challenge=/, { timeout: 20_000 });
    const challengeId = new URL(tablet.url()).searchParams.get("challenge") ?? "";
    await onScreen(tablet, "Too many devices on this account");
    const code = await sendFromIntro(tablet, "nina@example.com", /n\*+@example\.com/u);
    await tablet.locator("#code").fill(code);

    await onScreen(tablet, "Log out the devices you don’t use");
    const rows = tablet.locator("li.device");
    // The tablet is not signed in to the account yet, but it will be: it counts, as it does for the server.
    await expect.poll(() => rows.count()).toBe(2);
    const text = () => tablet.locator("main").textContent();
    expect(await text()).toContain("This account is signed in on 2 devices; 1 is allowed.");
    expect(await text()).toContain("Log out 1 more device to continue.");
    expect(await tablet.locator("#continue").isDisabled()).toBe(true);
    const listed = (await (await api("GET", `/v3/challenges/${challengeId}/devices`)).json()) as { data: unknown[] };
    expect(listed.data).toHaveLength(2);
    await audit(tablet, "en-devices-new-device");

    // nina's first device is Chrome on Linux (DEVICES[0]).
    await tablet.getByRole("button", { name: /^Log out Chrome on Linux/ }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await text()).toContain("You are within the limit. You can continue.");
    await tablet.locator("#continue").click();
    await onScreen(tablet, "You’re verified");
    expect((await client.getChallenge(challengeId)).status).toBe("completed");
    await first.close();
  });

  it("4. in Arabic every screen renders right to left, without axe violations, and fits 320 px", async () => {
    const page = await main.newPage();
    await page.goto(`${site.url}login?user=rana&email=rana@example.com&phone=%2B33698765432`);
    await page.waitForURL(/\/challenge\/\?challenge=/);
    // The customer may name the language; the app also follows the browser's languages.
    const url = new URL(page.url());
    url.searchParams.set("lang", "ar");
    await page.goto(url.href);
    await onScreen(page, "أكّد هويتك");
    const direction = () =>
      page.evaluate(() => ({
        dir: document.documentElement.dir,
        lang: document.documentElement.lang,
        css: getComputedStyle(document.querySelector("main") as Element).direction,
      }));
    expect(await direction()).toEqual({ dir: "rtl", lang: "ar", css: "rtl" });
    await audit(page, "ar-intro");
    await page.getByRole("button", { name: "متابعة" }).click();
    await onScreen(page, "أين نرسل الرمز؟");
    expect(await direction()).toEqual({ dir: "rtl", lang: "ar", css: "rtl" });
    await audit(page, "ar-channel");
    const since = smtp.mails.length;
    const code = await sendEmailCode(page, "rana@example.com", "أدخل الرمز");
    // The code mail is in the page's language.
    expect(smtp.mails.slice(since).find((m) => m.to.includes("rana@example.com"))?.html).toContain('lang="ar"');
    expect(await direction()).toEqual({ dir: "rtl", lang: "ar", css: "rtl" });
    await audit(page, "ar-code");

    // A phone-sized screen: nothing sticks out sideways, and the code box takes the card's width in large digits.
    await page.setViewportSize({ width: 320, height: 640 });
    const box = await page.evaluate(() => {
      const input = document.getElementById("code") as HTMLElement;
      const card = document.querySelector("main") as HTMLElement;
      const style = getComputedStyle(card);
      return {
        width: input.getBoundingClientRect().width,
        room: card.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight),
        font: Number.parseFloat(getComputedStyle(input).fontSize),
      };
    });
    expect(box.width).toBeCloseTo(box.room, 0);
    expect(box.font).toBeGreaterThanOrEqual(24);
    await page.locator("#code").fill(otherCode(code));
    await expect.poll(() => noticeError(page).textContent()).toMatch(/هذا الرمز غير صحيح/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await audit(page, "ar-code-wrong-320px");

    const success = await stayOnDone(page);
    await page.locator("#code").fill(code);
    await onScreen(page, "تم التحقق منك");
    await success.redirected;
    expect(await direction()).toEqual({ dir: "rtl", lang: "ar", css: "rtl" });
    await audit(page, "ar-done-320px");
    await success.leave();
    await page.waitForURL(`${site.url}welcome?evaluation=*`);
    await page.close();
  });

  it("2a. five wrong codes fail the challenge with “Too many attempts” on screen; the right code is refused after", async () => {
    const page = await main.newPage();
    await page.goto(`${site.url}login?user=carl&email=carl@example.com`);
    await page.waitForURL(/\/challenge\/\?challenge=/);
    const challengeId = new URL(page.url()).searchParams.get("challenge") ?? "";
    await onScreen(page, "Confirm it’s you");
    const code = await sendFromIntro(page, "carl@example.com", /^We will send a one-time code to \u2066c\*+@example\.com\u2069\.$/u);
    const wrong = otherCode(code);
    for (let left = 4; left >= 1; left--) {
      await page.locator("#code").fill(wrong);
      await expect.poll(() => page.locator("#code-attempts").textContent()).toBe(`${left} ${left === 1 ? "attempt" : "attempts"} left`);
      // Said once: the error says the code is wrong, the line under the field how many attempts are left.
      expect(await noticeError(page).textContent()).toBe("That code is not right.");
      expect(((await page.locator("main").textContent()) ?? "").match(/attempts? left/g)).toHaveLength(1);
      expect(await page.locator("#code").getAttribute("aria-invalid")).toBe("true");
      if (left === 4) await audit(page, "en-code-wrong");
    }
    await page.locator("#code").fill(wrong);
    await onScreen(page, "Too many attempts");
    expect(await page.locator("[role=alert]").first().textContent()).toContain("A wrong code was entered too many times");
    await audit(page, "en-too-many-attempts");
    const failed = await client.getChallenge(challengeId);
    expect(failed).toMatchObject({ status: "failed", verify_attempts: 5, email_verified: false });

    // Reloading the link shows the same dead end; the right code no longer works through the API either.
    await page.reload();
    await onScreen(page, "Too many attempts");
    const token = new URL(page.url()).searchParams.get("token") ?? "";
    const late = await fetch(`${server.url}/v3/challenges/${challengeId}/verify`, {
      method: "POST",
      headers: { "x-challenge-token": token, "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(late.status).toBe(409);

    // A changed link is "not valid" (another screen to check).
    const forged = new URL(page.url());
    forged.searchParams.set("token", `${token}x`);
    await page.goto(forged.href);
    await onScreen(page, "This link is not valid");
    await audit(page, "en-bad-link");
    await page.close();
  });

  it("the demo site's login goes through the challenge and back to “Verified”", async () => {
    const page = await main.newPage();
    await page.goto(`${server.url}/demo/`);
    await page.locator("#login input[name=user]").fill("demo_user");
    await page.locator("#login input[name=email]").fill("demo@example.com");
    await page.locator("#login button[type=submit]").click();
    await page.waitForURL(/\/challenge\/\?challenge=/, { timeout: 20_000 });
    await onScreen(page, "Confirm it’s you");
    const code = await sendFromIntro(page, "demo@example.com", /d\*+@example\.com/u);
    await page.locator("#code").fill(code);
    await page.waitForURL(/\/demo\/(\?evaluation=.*)?$/, { timeout: 20_000 });
    await expect.poll(() => page.locator("#status").textContent(), { timeout: 20_000 }).toMatch(/^Verified as demo_user/);
    await screenshot(page, "challenge-demo-back");
    await page.close();
  });

  it("2b. an expired code is refused with its own message (server restarted with a 1 s code lifetime)", async () => {
    await server.stop();
    await server.start({ CHALLENGE_CODE_TTL_MS: "1000" });
    // The default lifetime again afterwards, whichever test runs next.
    onTestFinished(async () => {
      await server.stop();
      await server.start({ CHALLENGE_CODE_TTL_MS: "600000" });
    });
    const page = await main.newPage();
    await page.goto(`${site.url}login?user=dora&email=dora@example.com`);
    await page.waitForURL(/\/challenge\/\?challenge=/);
    const challengeId = new URL(page.url()).searchParams.get("challenge") ?? "";
    await onScreen(page, "Confirm it’s you");
    const code = await sendFromIntro(page, "dora@example.com", /d\*+@example\.com/u);
    // The server set the code's expiry before sending the mail: one lifetime after receipt it has surely passed.
    const received = Date.now();
    await new Promise((r) => setTimeout(r, received + 1000 + 200 - Date.now()));
    await page.locator("#code").fill(code);
    await expect.poll(() => noticeError(page).textContent()).toBe("This code has expired. Send a new one.");
    await audit(page, "en-code-expired");
    const challenge = await client.getChallenge(challengeId);
    expect(challenge).toMatchObject({ status: "code_sent", email_verified: false });
    await page.close();
  });
});
