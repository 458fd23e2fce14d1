// The console end to end (docs/console.md): a real server, an operator made by the CLI, Chromium through
// playwright-core. An operator opens its one-time link and chooses a password, finds an evaluation by user and opens
// it, edits a policy in the condition-tree editor (live validation), backtests it, saves and enables it, and the
// next evaluation follows it. Every screen, in English and Arabic, passes axe-core and is photographed at 390 and
// 1280 px into e2e/artifacts/.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { type RunningServer, startServer } from "./helpers/server.js";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core"), "utf8");
const ROOT = new URL("../", import.meta.url).pathname;
const run = promisify(execFile);

let server: RunningServer;
let browser: Browser;
let page: Page;
const audited: string[] = [];
const PASSWORD = "correct horse battery staple";

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

const evaluate = (action: string, user: string, ip: string) =>
  api("POST", `/v3/evaluate/${action}`, { user, email: `${user}@example.com`, ip }) as Promise<{
    id: string;
    verdict: string;
    policy?: { name: string };
  }>;

async function onScreen(heading: string | RegExp): Promise<void> {
  await expect
    .poll(
      async () =>
        (await page
          .locator("#screen-title")
          .textContent()
          .catch(() => null)) ?? "",
      { timeout: 20_000 },
    )
    .toMatch(typeof heading === "string" ? new RegExp(heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : heading);
  // Data loaded: nothing is still busy.
  await expect.poll(() => page.locator("[aria-busy=true]").count(), { timeout: 20_000 }).toBe(0);
}

/** axe-core over the whole document at 1280 px, and screenshots at 1280 and 390 px. */
async function audit(name: string): Promise<void> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  };
  const violations = result.violations.map((v) => `${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(violations, `axe on ${name}`).toEqual([]);
  await screenshot(page, `console-${name}-1280`);
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, `console-${name}-390`);
  await page.setViewportSize({ width: 1280, height: 900 });
  audited.push(name);
}

async function open(hash: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await onScreen(heading);
}

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "warn" });
  // Traffic to look at: two users over two networks, a challenge, a list, a webhook endpoint.
  for (let i = 0; i < 6; i++) await evaluate(i % 3 ? "login" : "signup", i % 2 ? "alice" : "bob", i % 2 ? "81.2.69.142" : "203.0.113.9");
  await api("POST", "/v3/policies", {
    name: "Verify carol (e2e)",
    actions: ["login"],
    priority: 1000,
    conditions: { check: "user_id", op: "eq", value: "carol" },
    verdict: "challenge",
    challenge: { type: "account_takeover", channels: ["email"] },
  });
  await evaluate("login", "carol", "81.2.69.142");
  await api("POST", "/v3/policies", {
    name: "Deny a user (e2e)",
    actions: ["login"],
    priority: 1100,
    enabled: false,
    conditions: { all: [{ check: "user_id", op: "eq", value: "nobody" }] },
    verdict: "deny",
  });
  await api("POST", "/v3/lists/blocked_ips/add", { values: ["198.51.100.7"], comment: "e2e" });
  await api("POST", "/v3/webhook-endpoints", { url: "http://localhost:9/hooks", events: ["challenge.completed"] });
  browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

describe("console", () => {
  it("an operator created by the CLI opens its one-time link, chooses a password and lands on the overview", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        join(ROOT, "bin/tessera.mjs"),
        "operators",
        "create",
        "--email",
        "owner@e2e.test",
        "--role",
        "owner",
        "--project",
        server.project.id,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: "development", DATA_DIR: server.dataDir, PORT: String(server.port), LOG_LEVEL: "warn" },
      },
    );
    const link = /https?:\/\/\S+#\/welcome\?token=\S+/.exec(stdout)?.[0];
    expect(link, stdout).toBeTruthy();
    await page.goto(link!);
    await onScreen("Choose your password");
    await audit("welcome-en");
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await onScreen("Overview");
    expect(await page.locator(".stat").count()).toBe(2);
  });

  it("finds an evaluation by user and opens its detail", async () => {
    await open("#/evaluations", "Evaluations");
    await page.getByLabel("User id").fill("alice");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(3);
    await page.locator("tbody tr").first().getByRole("link").first().click();
    await onScreen(/^Evaluation/);
    await expect.poll(() => page.locator(".facts").first().textContent()).toContain("alice");
    expect(await page.getByRole("heading", { name: "Checks snapshot" }).count()).toBe(1);
    expect(await page.locator("table.checks tbody tr").count()).toBeGreaterThan(20);
  });

  it("edits a policy in the tree editor with live validation, backtests it, enables it, and the next evaluation follows it", async () => {
    await open("#/policies", "Policies");
    await page.getByRole("link", { name: "Deny a user (e2e)" }).click();
    await onScreen("Policy: Deny a user (e2e)");
    const node = page.locator(".comparison").first();
    // Live validation: a number operator on a string check is refused before anything is sent.
    await node.getByLabel("Operator").selectOption("gt");
    await expect.poll(() => page.locator("#validation").textContent()).toMatch(/conditions\.all\.0\.op/);
    expect(await page.getByRole("button", { name: "Save" }).isDisabled()).toBe(true);
    await node.getByLabel("Operator").selectOption("eq");
    await node.getByLabel("Value").fill("bob");
    await expect.poll(() => page.locator("#validation").textContent()).toBe("The conditions are valid.");
    // The JSON view shows the same tree.
    await page.getByRole("button", { name: "JSON" }).click();
    expect(JSON.parse(await page.getByLabel("Conditions as JSON").inputValue())).toEqual({
      all: [{ check: "user_id", op: "eq", value: "bob" }],
    });
    await page.getByRole("button", { name: "Tree" }).click();
    await page.getByRole("button", { name: "Run backtest" }).click();
    // bob's logins (i = 2, 4) would now be denied.
    await expect.poll(() => page.locator("#backtest-changed").textContent(), { timeout: 20_000 }).toBe("2");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("[role=status]").textContent()).toBe("Saved.");
    expect((await evaluate("login", "bob", "203.0.113.9")).verdict).toBe("allow");
    await open("#/policies", "Policies");
    await page.getByLabel("Enabled: Deny a user (e2e)").check();
    await expect.poll(() => page.locator("[role=status]").textContent()).toBe("Saved.");
    const next = await evaluate("login", "bob", "203.0.113.9");
    expect(next.verdict).toBe("deny");
    expect(next.policy?.name).toBe("Deny a user (e2e)");
  });

  it("adds a list value, sends a webhook test event and changes the branding with its live preview, from the screens", async () => {
    await open("#/lists", "Lists");
    await page.getByLabel("List id").fill("vip");
    await page.getByLabel("Values (one per line)").fill("alice\nbob");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await onScreen("List vip");
    await expect.poll(() => page.locator("tbody tr").allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining("alice")]));
    expect(((await api("GET", "/v3/lists/vip")) as { total: number }).total).toBe(2);

    await open("#/webhooks", "Webhook endpoints");
    await page.getByRole("button", { name: "Send a test event" }).click();
    await expect.poll(() => page.locator("[role=status]").textContent()).toBe("Test event queued.");
    await expect.poll(() => page.locator("table caption").count()).toBe(1);

    await open("#/settings", "Settings");
    await page.getByLabel("Colour").fill("#0a7f5a");
    // The preview takes the colour as it is typed, before anything is saved.
    await expect
      .poll(() => page.locator(".preview-page").evaluate((el) => getComputedStyle(el).getPropertyValue("--brand").trim()))
      .toBe("#0a7f5a");
    await page.getByLabel("Identity verification").selectOption("required");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("[role=status]").textContent()).toBe("Saved.");
    expect(await api("GET", "/v3/settings")).toMatchObject({ color: "#0a7f5a", identity_verification: "required" });
  });

  it("every screen passes axe in English and Arabic, photographed at 390 and 1280 px", async () => {
    const policy = ((await api("GET", "/v3/policies")) as { data: { id: string; name: string }[] }).data.find(
      (p) => p.name === "Deny a user (e2e)",
    )!;
    const evaluation = ((await api("GET", "/v3/evaluations?user=bob&limit=1")) as { data: { id: string }[] }).data[0]!;
    for (const [lang, titles] of [
      [
        "en",
        [
          "Overview",
          "Evaluations",
          /^Evaluation /,
          "User bob",
          "Policies",
          "Policy: ",
          "Lists",
          "List blocked_ips",
          "Challenges",
          "Webhook endpoints",
          "Settings",
          "Audit log",
        ],
      ],
      [
        "ar",
        [
          "نظرة عامة",
          "التقييمات",
          /^التقييم /,
          "المستخدم bob",
          "السياسات",
          "السياسة: ",
          "القوائم",
          "القائمة blocked_ips",
          "عمليات التحقق",
          "نقاط نهاية خطافات الويب",
          "الإعدادات",
          "سجل التدقيق",
        ],
      ],
    ] as const) {
      await page.locator("#lang").selectOption(lang);
      await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe(lang === "ar" ? "rtl" : "ltr");
      const screens = [
        ["overview", "#/overview"],
        ["evaluations", "#/evaluations"],
        ["evaluation", `#/evaluations/${evaluation.id}`],
        ["user", "#/users/bob"],
        ["policies", "#/policies"],
        ["policy", `#/policies/${policy.id}`],
        ["lists", "#/lists"],
        ["list", "#/lists/blocked_ips"],
        ["challenges", "#/challenges"],
        ["webhooks", "#/webhooks"],
        ["settings", "#/settings"],
        ["audit", "#/audit"],
      ];
      for (const [i, [name, hash]] of screens.entries()) {
        await open(hash!, titles[i]!);
        await audit(`${name}-${lang}`);
      }
    }
    await page.locator("#lang").selectOption("en");
  });

  it("signs out, and signs in again with the chosen password", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await onScreen("Sign in to the console");
    await audit("sign-in-en");
    await page.locator("#lang").selectOption("ar");
    await onScreen("تسجيل الدخول إلى وحدة التحكم");
    await audit("sign-in-ar");
    await page.locator("#lang").selectOption("en");
    await page.getByLabel("Email").fill("owner@e2e.test");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Back where the operator was.
    await onScreen("Audit log");
  });
});
