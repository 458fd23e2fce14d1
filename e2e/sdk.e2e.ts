// The browser SDK in a real Chromium against a real server ("End-to-end tests"): a customer page on
// another origin with only the script tag and a few lines evaluates a login that the backend client reads and
// consumes; fingerprints are stable across reloads and differ across devices; automation shows in the checks, and a
// stealth headless browser without markers in the server's own checks;
// bad arguments and a server that is down reject without breaking the page.

import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, Client, userToken } from "../sdk/src/node/index.js";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { type CustomerSite, startCustomerSite } from "./helpers/customer-site.js";
import { type RunningServer, startServer } from "./helpers/server.js";

const CLI = join(new URL("../", import.meta.url).pathname, "bin/tessera.mjs");
const run = promisify(execFile);

let server: RunningServer;
let site: CustomerSite;
let client: Client;
const browsers: Browser[] = [];

beforeAll(async () => {
  server = await startServer();
  const dev = server.project.environments.development;
  site = await startCustomerSite(server.url, dev.client_id);
  client = new Client(dev.secret, { baseUrl: server.url });
});

afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => undefined);
  await site?.close();
  await server?.dispose();
});

async function browser(options: Parameters<typeof launchBrowser>[0] = {}): Promise<Browser> {
  const b = await launchBrowser(options);
  browsers.push(b);
  return b;
}

/** Opens the customer page and waits for the evaluation id its own code writes into the page. */
async function evaluatedLogin(page: Page): Promise<string> {
  await page.goto(site.url);
  const out = page.locator("#out");
  await expect.poll(async () => out.textContent(), { timeout: 30_000 }).not.toBe("pending");
  const text = (await out.textContent()) ?? "";
  if (text.startsWith("error")) throw new Error(`the page's evaluation failed: ${text}\n${server.log()}`);
  return text;
}

function watch(page: Page): { errors: string[] } {
  const seen = { errors: [] as string[] };
  page.on("pageerror", (e) => seen.errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) seen.errors.push(`csp: ${m.text()}`);
  });
  return seen;
}

describe("browser SDK", () => {
  it("a page on another origin with only the script tag evaluates a login that the backend client reads and consumes", async () => {
    const b = await browser();
    const page = await b.newPage();
    const seen = watch(page);
    const evaluationId = await evaluatedLogin(page);
    await screenshot(page, "customer-login");
    expect(new URL(site.url).origin).not.toBe(new URL(server.url).origin);

    const evaluation = await client.getEvaluation(evaluationId);
    expect(evaluation.id).toBe(evaluationId);
    expect(evaluation.action).toBe("login");
    expect(evaluation.user?.id).toBe("acct_42");
    expect(evaluation.fingerprint?.id).toBeTruthy();

    const consumed = await client.consumeEvaluation(evaluationId);
    expect(consumed.consumed).toBe(true);
    const again = await client.consumeEvaluation(evaluationId).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ApiError);
    expect(again).toMatchObject({ status: 409, code: "already_consumed" });
    // Under the page's strict CSP (no eval, no inline code) nothing was refused and nothing threw.
    expect(seen.errors).toEqual([]);
  });

  it("reloading the same browser profile gives the same fingerprint", async () => {
    const b = await browser();
    const page = await b.newPage();
    const first = await client.getEvaluation(await evaluatedLogin(page));
    await page.reload();
    const second = await client.getEvaluation(await evaluatedLogin(page));
    expect(second.id).not.toBe(first.id);
    expect(first.fingerprint?.id).toBeTruthy();
    expect(second.fingerprint?.id).toBe(first.fingerprint?.id);
    expect(second.device).toBe(first.device);
  });

  it("another browser with another user agent, screen and time zone gives another fingerprint", async () => {
    const a = await browser();
    const first = await client.getEvaluation(await evaluatedLogin(await a.newPage()));
    const other = await browser({
      userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      viewport: { width: 1440, height: 900 },
      locale: "fr-FR",
      timezoneId: "Europe/Paris",
    });
    const page = await other.newPage();
    const second = await client.getEvaluation(await evaluatedLogin(page));
    await screenshot(page, "customer-login-other-device");
    expect(second.fingerprint?.id).toBeTruthy();
    expect(second.fingerprint?.id).not.toBe(first.fingerprint?.id);
  });

  it("the automation markers of the test browser show up in the evaluation's checks", async () => {
    const b = await browser();
    const page = await b.newPage();
    expect(await page.evaluate(() => navigator.webdriver)).toBe(true);
    const evaluation = await client.getEvaluation(await evaluatedLogin(page));
    expect(evaluation.checks?.client_automation).toBe(true);
  });

  it("a stealth headless browser (no webdriver flag, a Windows user agent, the 800×600 screen) is caught by the server's own checks", async () => {
    const b = await browser({
      human: true,
      userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      viewport: { width: 800, height: 600 },
    });
    const page = await b.newPage();
    expect(await page.evaluate(() => navigator.webdriver)).toBe(false);
    const evaluation = await client.getEvaluation(await evaluatedLogin(page));
    // The SDK sent the window sizes; the platform (Linux x86_64) contradicts the user agent.
    expect(evaluation.checks).toMatchObject({ user_agent_mismatch: true, headless_window: true, is_bot: true });
    expect(["high", "maximum"]).toContain(evaluation.risks?.find((r) => r.name === "bot")?.severity);
    expect(evaluation.verdict).toBe("challenge");
  });

  it("a bad argument to evaluate.login rejects with an error that names it", async () => {
    const b = await browser();
    const page = await b.newPage();
    await evaluatedLogin(page);
    const outcome = await page.evaluate(async () => {
      const t = (window as unknown as { tessera: { evaluate: { login(o: unknown): Promise<unknown> } } }).tessera;
      try {
        await t.evaluate.login({ user: "acct_42", phone: "0612345678" });
        return { rejected: false };
      } catch (e) {
        const err = e as { name: string; code: string; param: string; message: string };
        return { rejected: true, name: err.name, code: err.code, param: err.param, message: err.message };
      }
    });
    expect(outcome).toMatchObject({ rejected: true, name: "ArgumentError", code: "invalid_argument", param: "evaluate.login.phone" });
    expect(outcome.message).toMatch(/phone must be in international format/);
    const syncThrow = await page.evaluate(() => {
      try {
        const T = (window as unknown as { Tessera: new (o: unknown) => { evaluate: { login(): Promise<unknown> } } }).Tessera;
        const p = new T({}).evaluate.login();
        return p.then(
          () => "resolved",
          (e: { param?: string }) => `rejected ${e.param}`,
        );
      } catch {
        return "threw synchronously";
      }
    });
    expect(syncThrow).toBe("rejected options.clientId");
    // A heartbeat faster than every 2 s would be a load, not a check (and past the server's limit): refused the same way.
    const fastBeat = await page.evaluate(() => {
      const T = (window as unknown as { Tessera: new (o: unknown) => { evaluate: { login(): Promise<unknown> } } }).Tessera;
      return new T({ clientId: "pk_test_x", heartbeat: { interval: 5 } }).evaluate.login().then(
        () => "resolved",
        (e: { param?: string }) => `rejected ${e.param}`,
      );
    });
    expect(fastBeat).toBe("rejected options.heartbeat.interval");
  });

  it("attach sends the backend's user_token: refused without it (403), attached with it", async () => {
    // The operator creates the environment's identity secret with the CLI; the customer's backend signs the user id.
    const { stdout } = await run(process.execPath, [CLI, "keys", "identity-secret", server.project.id, "--env", "development", "--json"], {
      env: { ...process.env, NODE_ENV: "development", DATA_DIR: server.dataDir },
    });
    const secret = (JSON.parse(stdout.slice(stdout.indexOf("{"))) as { identity_secret: string }).identity_secret;
    const token = await userToken(secret, "acct_attach");
    const b = await browser();
    const page = await b.newPage();
    await evaluatedLogin(page);
    const attach = (user_token?: string) =>
      page.evaluate(async (t) => {
        const tessera = (window as unknown as { tessera: { attach(o: unknown): Promise<{ device: string; status: string }> } }).tessera;
        try {
          return await tessera.attach({ user: "acct_attach", ...(t ? { user_token: t } : {}) });
        } catch (e) {
          return { error: `${(e as Error).name} ${(e as { status: number }).status} ${(e as { code: string }).code}` };
        }
      }, user_token);
    expect(await attach()).toEqual({ error: "ApiError 403 identity_verification_required" });
    // The server reads the CLI's new secret within its client-id cache time (2 s).
    let attached = { device: "", status: "" };
    await expect
      .poll(
        async () => {
          attached = (await attach(token)) as typeof attached;
          return attached.status;
        },
        { timeout: 10_000 },
      )
      .toBe("attached");
    expect((await client.getUserDevices("acct_attach")).map((d) => d.id)).toEqual([attached.device]);
  });

  it("when the server is down the promise rejects with a NetworkError and the page keeps working", async () => {
    const b = await browser();
    const page = await b.newPage();
    const seen = watch(page);
    await evaluatedLogin(page); // the script is loaded and cached in the page
    await server.stop();
    try {
      const outcome = await page.evaluate(async () => {
        const t = (window as unknown as { tessera: { evaluate: { login(o: unknown): Promise<unknown> } } }).tessera;
        try {
          await t.evaluate.login({ user: "acct_42" });
          return "resolved";
        } catch (e) {
          return `${(e as Error).name} ${(e as { code: string }).code}`;
        }
      });
      expect(outcome).toBe("NetworkError network_error");
      await page.click("#counter");
      await page.click("#counter");
      expect(await page.locator("#counter").textContent()).toBe("clicked 2");
      await screenshot(page, "customer-server-down");
      expect(seen.errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    } finally {
      await server.start();
    }
  });
});
