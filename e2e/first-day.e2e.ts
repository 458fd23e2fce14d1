// A first day on the demo site (docs/projects.md), in headless Chromium as a new user's own tests would drive it: without
// test mode the headless browser is refused as a bot; the demo's test-mode box puts the user on test_challenge; the
// login goes to the hosted challenge; the code is on the dev outbox page linked from the demo (and in the server log);
// typed in, it brings the browser back to the demo, verified. Restrict shows as a restricted login.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { type RunningServer, startServer } from "./helpers/server.js";

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  // The log level of `npm start`: the dev outbox's line is an info line.
  server = await startServer({ LOG_LEVEL: "info" });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

const status = (page: Page) => page.locator("#status").textContent();

async function setTestMode(page: Page, verdict: string): Promise<void> {
  await page.locator("#test-mode input[name=user]").fill("acct_42");
  await page.locator("#test-mode select[name=verdict]").selectOption(verdict);
  await page.locator("#test-mode button[type=submit]").click();
}

async function logIn(page: Page): Promise<void> {
  await page.locator("#login input[name=user]").fill("acct_42");
  await page.locator("#login input[name=email]").fill("alice@example.com");
  await page.locator("#login button[type=submit]").click();
}

describe("a first day on the demo site", () => {
  it("test mode challenges the headless browser; the code is on the dev outbox page; back on the demo, verified", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/demo/`);
    await logIn(page);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe("Refused: denied by policy");

    await setTestMode(page, "challenge");
    await expect
      .poll(() => status(page))
      .toBe(
        "Test mode: the pages acct_42 opens are let in; every login, sign-up and other action of acct_42 is now challenge (test_challenge list)",
      );
    await logIn(page);
    await page.waitForURL(/\/challenge\/\?challenge=/, { timeout: 30_000 });
    await page.getByRole("button", { name: "Send code" }).click();
    await page.locator("#code").waitFor();

    // The code, where the demo says it is: its "Dev outbox" link.
    const outbox = await browser.newPage();
    await outbox.goto(`${server.url}/demo/`);
    expect(await outbox.locator("#outbox-link").getAttribute("href")).toBe("/demo/outbox");
    await outbox.goto(`${server.url}/demo/outbox`);
    const code = ((await outbox.locator("#outbox tbody tr").first().locator("td.code").textContent()) ?? "").trim();
    expect(code).toMatch(/^\d{6}$/);
    expect(await outbox.locator("#outbox tbody tr").first().textContent()).toContain("alice@example.com");
    await screenshot(outbox, "first-day-outbox");
    // And in the server's log.
    expect(server.log()).toContain(`[dev outbox] code ${code} for alice@example.com (email; see /demo/outbox)`);

    await page.locator("#code").fill(code);
    await page.waitForURL(/\/demo\/(\?evaluation=.*)?$/, { timeout: 30_000 });
    await expect.poll(() => status(page), { timeout: 30_000 }).toMatch(/^Verified as acct_42/);
    await screenshot(page, "first-day-verified");

    await setTestMode(page, "restrict");
    await expect.poll(() => status(page)).toMatch(/now restrict/);
    await logIn(page);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe("Logged in as acct_42, with restricted access (verdict restrict)");
  });
});
