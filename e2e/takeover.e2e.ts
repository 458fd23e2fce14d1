// The README's login integration, run end to end on the demo site (server/src/demo) against the account takeover of
// docs/security.md ("Contact details are the backend's"; docs/security.md): the attacker knows the owner's user id and password,
// uses their own browser and IP, and types their own email into the login form. The code must go to the owner's
// stored email, so the attacker never ends up logged in; the owner still gets in, from their browser and from a new
// one. A real server, real SMTP on loopback, Chromium; the client IP comes from X-Forwarded-For (TRUST_PROXY=1).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../sdk/src/node/index.js";
import { codeFrom, startSmtp, type TestSmtp } from "../server/test/smtp.js";
import { type Browser, type BrowserOptions, launchBrowser, screenshot } from "./helpers/browser.js";
import { type RunningServer, startServer } from "./helpers/server.js";

const OWNER_EMAIL = "dana@example.com";
const ATTACKER_EMAIL = "mallory@evil.example";

/** Distinct devices (see challenge.e2e.ts): what the server keys hardware on differs, not only the user agent. English
 * locales all: the hosted app follows the browser's language. Linux or Android user agents: Chromium's client hints
 * report this machine's Linux, and a Windows user agent over them is what a forged one looks like (docs/detection.md). */
const OWNER: BrowserOptions = {
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  viewport: { width: 1280, height: 800 },
  locale: "en-US",
  timezoneId: "America/New_York",
  human: true,
};
const ATTACKER: BrowserOptions = {
  userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  viewport: { width: 412, height: 915 },
  locale: "en-GB",
  timezoneId: "Europe/Paris",
  hasTouch: true,
  isMobile: true,
  deviceScaleFactor: 2.625,
  human: true,
};
const OWNER_NEW_LAPTOP: BrowserOptions = {
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36",
  viewport: { width: 1366, height: 768 },
  locale: "en-AU",
  timezoneId: "Europe/Madrid",
  args: ["--disable-3d-apis"],
  human: true,
};

let server: RunningServer;
let smtp: TestSmtp;
let client: Client;
const browsers: Browser[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Tessera <no-reply@test.local>",
    TRUST_PROXY: "1",
    CHALLENGE_IP_RATE_LIMIT: "100000",
  });
  client = new Client(server.project.environments.development.secret, { baseUrl: server.url });
});

afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => undefined);
  await server?.dispose();
  await smtp?.close();
});

/** A browser whose every request says it comes from `ip` (through the trusted proxy). */
async function deviceAt(options: BrowserOptions, ip: string): Promise<Page> {
  const b = await launchBrowser(options);
  browsers.push(b);
  await b.context.setExtraHTTPHeaders({ "x-forwarded-for": ip });
  return b.newPage();
}

const status = (page: Page) => page.locator("#status").textContent();
const heading = (page: Page) => page.locator("#screen-title").textContent();

/** Fills the demo's login form (any password is "right" on the demo) and submits it. */
async function logIn(page: Page, user: string, email: string): Promise<void> {
  await page.goto(`${server.url}/demo/`);
  await page.locator("#login input[name=user]").fill(user);
  await page.locator("#login input[name=email]").fill(email);
  await page.locator("#login input[name=password]").fill("the-owner's-password");
  await page.locator("#login button[type=submit]").click();
}

describe("the login integration against an account takeover", () => {
  it("the owner signs in; an attacker with the password and their own email is challenged with a code sent to the owner", async () => {
    // The owner's home: a London address (its country is what a new browser elsewhere is compared with).
    const owner = await deviceAt(OWNER, "81.2.69.142");
    await logIn(owner, "dana", OWNER_EMAIL);
    await expect.poll(() => status(owner), { timeout: 30_000 }).toMatch(/^Logged in as dana/);

    const attacker = await deviceAt(ATTACKER, "203.0.113.66");
    const since = smtp.mails.length;
    await logIn(attacker, "dana", ATTACKER_EMAIL);
    // The demo backend read `challenge` and sent the browser to the hosted page: no session for the attacker.
    await attacker.waitForURL(/\/challenge\/\?challenge=/, { timeout: 30_000 });
    const challengeId = new URL(attacker.url()).searchParams.get("challenge") ?? "";
    await expect.poll(() => heading(attacker), { timeout: 20_000 }).toBe("Confirm it’s you");
    // The only destination is the owner's address, masked (so no choice to make); the attacker's own is nowhere.
    const main = (await attacker.locator("main").textContent()) ?? "";
    expect(await attacker.locator("#send-to").textContent()).toMatch(/d\*+@example\.com/);
    expect(main).not.toContain("mallory");
    await attacker.getByRole("button", { name: "Send code" }).click();
    await expect.poll(() => heading(attacker)).toBe("Enter your code");
    const mail = await smtp.next(OWNER_EMAIL, { since });
    expect(smtp.mails.slice(since).filter((m) => m.to.includes(ATTACKER_EMAIL))).toEqual([]);

    // Guessing gets nowhere, and the owner learns of the attempt from the mail.
    const code = codeFrom(mail);
    await attacker.locator("#code").fill(code === "000000" ? "111111" : "000000");
    await expect.poll(() => attacker.locator("#notice-error").textContent()).toMatch(/not right/);
    expect(mail.text).toContain("someone may know your password");
    await screenshot(attacker, "takeover-attacker-stuck");
    expect(attacker.url()).toMatch(/\/challenge\//);
    const challenge = await client.getChallenge(challengeId);
    expect(challenge.status).toBe("code_sent");
    expect(challenge.user?.email).toBe(OWNER_EMAIL);
    const ev = await client.getEvaluation(challenge.evaluation ?? "");
    expect(ev.checks?.contact_mismatch).toBe(true);
    expect(ev.consumed).toBeFalsy();
    // The owner's stored email is unchanged.
    expect((await client.getChallenge(challengeId)).user?.email).toBe(OWNER_EMAIL);

    // The owner, from their own browser, still signs in as before.
    await logIn(owner, "dana", OWNER_EMAIL);
    await expect.poll(() => status(owner), { timeout: 30_000 }).toMatch(/^Logged in as dana/);
  });

  it("the owner on a new laptop is challenged too, reads the code in their own mailbox and gets in", async () => {
    // A new browser on a new network in another country (Madrid): an unfamiliar login, whoever it is.
    const laptop = await deviceAt(OWNER_NEW_LAPTOP, "90.75.247.205");
    const since = smtp.mails.length;
    await logIn(laptop, "dana", OWNER_EMAIL);
    await laptop.waitForURL(/\/challenge\/\?challenge=/, { timeout: 30_000 });
    await expect.poll(() => heading(laptop), { timeout: 20_000 }).toBe("Confirm it’s you");
    await laptop.getByRole("button", { name: "Send code" }).click();
    await expect.poll(() => heading(laptop)).toBe("Enter your code");
    const code = codeFrom(await smtp.next(OWNER_EMAIL, { since }));
    await laptop.locator("#code").fill(code);
    await laptop.waitForURL(/\/demo\/(\?evaluation=.*)?$/, { timeout: 30_000 });
    await expect.poll(() => status(laptop), { timeout: 30_000 }).toMatch(/^Verified as dana/);
    await screenshot(laptop, "takeover-owner-verified");
  });
});
