// The hosted challenge's account-sharing page as its verified owner uses it, in Chromium on a real server: three
// devices that are the same Chrome on Windows are told apart by where they were last used (place and IP address) and
// when they were added, the one in hand is marked, and "Log out all other devices" leaves only it, in one click. The
// screen passes axe-core in English and Arabic and is photographed (e2e/artifacts/challenge-devices-*.png), Arabic at
// 320 px.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { type RunningServer, startServer } from "./helpers/server.js";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core"), "utf8");
const WINDOWS_CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
/** The account's browsers: Stockholm, Paris, and the one the challenge is opened from (a documentation address). */
const PLACES = [
  ["sam-1", "89.160.20.112"],
  ["sam-2", "90.84.23.1"],
  ["sam-3", "203.0.113.9"],
] as const;

let server: RunningServer;
let browser: Browser;
let link: string;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${server.project.environments.development.secret}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = res.status === 204 ? undefined : await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A client evaluation of sam from the browser `seed` at `ip`; answers what the browser gets. */
async function evaluateFrom(action: string, seed: string, ip: string): Promise<{ evaluation_id: string; redirect?: string }> {
  const res = await fetch(`${server.url}/v3/client/evaluate/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": WINDOWS_CHROME, "x-forwarded-for": ip },
    body: JSON.stringify({
      client_id: server.project.environments.development.client_id,
      user: "sam",
      email: "sam@example.com",
      signals: { components: { platform: { value: "Win32" }, fonts: { value: [seed] } }, visitor_token: `tok-${seed}-xxxxxxxx` },
    }),
  });
  return (await res.json()) as { evaluation_id: string; redirect?: string };
}

async function onScreen(page: Page, heading: string): Promise<void> {
  await expect
    .poll(
      async () =>
        (await page
          .locator("#screen-title")
          .textContent()
          .catch(() => null)) ?? "",
      { timeout: 20_000 },
    )
    .toBe(heading);
}

/** A screenshot and an axe-core pass over the whole document (through DevTools: the app's CSP refuses inline scripts). */
async function audit(page: Page, name: string): Promise<void> {
  await screenshot(page, `challenge-devices-${name}`);
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  };
  const violations = result.violations.map((v) => `${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(violations, `axe on ${name}`).toEqual([]);
}

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "warn", TRUST_PROXY: "1" });
  await api("POST", "/v3/policies", {
    name: "Sharing (e2e)",
    actions: ["share_e2e"],
    priority: 1000,
    conditions: { all: [] },
    verdict: "challenge",
    challenge: { type: "account_sharing", channels: ["email"], device_limit: 1 },
  });
  // sam is signed in on three alike browsers (the backend attached each); the third is then challenged.
  for (const [seed, ip] of PLACES) {
    const { evaluation_id } = await evaluateFrom("visit", seed, ip);
    const { device } = (await api("GET", `/v3/evaluations/${evaluation_id}`)) as { device: string };
    await api("POST", `/v3/devices/${device}/attach`, { user: "sam" });
  }
  const [seed, ip] = PLACES[2];
  const { redirect } = await evaluateFrom("share_e2e", seed, ip);
  if (!redirect) throw new Error("sam was not challenged");
  link = redirect;
  browser = await launchBrowser({ viewport: { width: 390, height: 844 } });
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

describe("account sharing's device list", () => {
  it("the verified owner tells alike devices apart and logs out all the others in one click", async () => {
    const page = await browser.newPage();
    await page.goto(link);
    await onScreen(page, "Too many devices on this account");
    await page.getByRole("button", { name: "Send code" }).click();
    await onScreen(page, "Enter your code");
    const { data } = (await api("GET", "/v3/dev/outbox")) as { data: { code?: string; recipient: string }[] };
    await page.locator("#code").fill(data.find((m) => m.recipient === "sam@example.com")?.code ?? "");

    await onScreen(page, "Log out the devices you don’t use");
    const rows = page.locator("li.device");
    await expect.poll(() => rows.count()).toBe(3);
    const texts = await rows.allTextContents();
    // The same name three times: what tells them apart is the rest.
    expect(texts.filter((t) => t.includes("Computer · Chrome on Windows 10"))).toHaveLength(3);
    expect(texts.some((t) => t.includes("Last used near Stockholm, Sweden") && t.includes("IP address 89.160.20.112"))).toBe(true);
    expect(texts.some((t) => t.includes("Last used near Paris, France") && t.includes("IP address 90.84.23.1"))).toBe(true);
    expect(texts.every((t) => /Added /.test(t))).toBe(true);
    const current = page.locator("li.device.current");
    expect(await current.textContent()).toContain("This device");
    expect(await current.textContent()).toContain("IP address 203.0.113.9");
    expect(await page.locator("#continue").isDisabled()).toBe(true);
    await audit(page, "en-over");

    await page.getByRole("button", { name: "Log out all other devices" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => page.locator("[role=status]").first().textContent()).toBe("2 devices were logged out.");
    expect(await page.locator("main").textContent()).toContain("You are within the limit. You can continue.");
    expect(await page.locator("#continue").isDisabled()).toBe(false);
    expect(await page.getByRole("button", { name: "Log out all other devices" }).count()).toBe(0);
    await audit(page, "en-within");
    const left = (await api("GET", "/v3/user/sam/devices")) as { status: string }[];
    expect(left.filter((d) => d.status === "attached")).toHaveLength(1);
  });

  it("in Arabic the list reads right to left, the addresses left to right, without axe violations, at 320 px", async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 320, height: 700 });
    const url = new URL(link);
    url.searchParams.set("lang", "ar");
    await page.goto(url.href);
    await onScreen(page, "سجّل الخروج من الأجهزة التي لا تستخدمها");
    expect(await page.evaluate(() => document.documentElement.dir)).toBe("rtl");
    expect(await page.locator("bdi.ip").first().getAttribute("dir")).toBe("ltr");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await audit(page, "ar-320");
  });
});
