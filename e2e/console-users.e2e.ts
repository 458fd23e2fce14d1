// The console as an operator uses it (docs/console.md), end to end in Chromium on a real server: the Users screen
// finds a user and opens the timeline (devices told apart by place and address, metadata, challenges, lists), a device
// is detached and the user erased; a refused change says what failed and what to do, next to the field, and can be
// dismissed; the evaluations search says when it is loading and when it failed (never "no evaluation matches"); the
// audit log shows a change field by field; secret keys show their label and last use; on a phone the header is one
// compact row. Each new or changed screen passes axe-core in English and Arabic and is photographed at 390 and 1280 px
// (and the header at 320 px) into e2e/artifacts/console-*.png.
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
const PASSWORD = "correct horse battery staple";
const WINDOWS_CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

let server: RunningServer;
let browser: Browser;
let page: Page;

async function api(method: string, path: string, body?: unknown, secret = server.project.environments.development.secret) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = res.status === 204 ? undefined : await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A login of `user` from a browser at `ip` (the same Chrome on Windows each time), its device attached by the backend. */
async function loginFrom(user: string, seed: string, ip: string): Promise<void> {
  const res = await fetch(`${server.url}/v3/client/evaluate/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": WINDOWS_CHROME, "x-forwarded-for": ip },
    body: JSON.stringify({
      client_id: server.project.environments.development.client_id,
      user,
      email: `${user}@example.com`,
      signals: {
        components: { platform: { value: "Win32" }, timezone: { value: "Europe/Paris" }, fonts: { value: [seed] } },
        visitor_token: `tok-${seed}-xxxxxxxx`,
      },
    }),
  });
  const { evaluation_id } = (await res.json()) as { evaluation_id: string };
  const { device } = (await api("GET", `/v3/evaluations/${evaluation_id}`)) as { device: string };
  await api("POST", `/v3/devices/${device}/attach`, { user });
}

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
  await expect.poll(() => page.locator("[aria-busy=true]").count(), { timeout: 20_000 }).toBe(0);
}

async function open(hash: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await onScreen(heading);
}

/** axe-core over the whole document, and screenshots at 1280 and 390 px. */
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
}

const alert = () => page.locator("[role=alert]").first().textContent();
const status = () => page.locator("[role=status]").first().textContent();

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "warn", TRUST_PROXY: "1" });
  // dana: three alike browsers (Stockholm, Paris, a documentation address), metadata and a group; erin: one login.
  await loginFrom("dana", "dana-1", "89.160.20.112");
  await loginFrom("dana", "dana-2", "90.84.23.1");
  await loginFrom("dana", "dana-3", "203.0.113.9");
  await api("POST", "/v3/user/dana/update", { metadata: { plan: "pro" }, groups: [{ id: "team_1", name: "Acme team" }] });
  await api("POST", "/v3/lists/vip/add", { values: ["dana"], comment: "e2e" });
  await loginFrom("erin", "erin-1", "90.84.23.1");
  await api("POST", "/v3/policies", {
    name: "Deny nobody (e2e)",
    actions: ["login"],
    priority: 1100,
    enabled: false,
    conditions: { check: "user_id", op: "eq", value: "nobody" },
    verdict: "deny",
  });
  browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
  page = await browser.newPage();
  page.on("dialog", (d) => void d.accept());
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

describe("the console as an operator uses it", () => {
  it("an owner made by the CLI signs in with its link", async () => {
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, "bin/tessera.mjs"), "operators", "create", "--email", "ops@e2e.test", "--role", "owner", "--project", server.project.id],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: "development", DATA_DIR: server.dataDir, PORT: String(server.port), LOG_LEVEL: "warn" },
      },
    );
    const link = /https?:\/\/\S+#\/welcome\?token=\S+/.exec(stdout)?.[0];
    expect(link, stdout).toBeTruthy();
    await page.goto(link!.replace(/^https?:\/\/[^/]+/, server.url));
    await onScreen("Choose your password");
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await onScreen("Overview");
  });

  it("the Users screen is in the navigation, lists the newest users and finds one by id or email", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Users" }).click();
    await onScreen("Users");
    expect(await page.getByRole("heading", { name: "Newest users" }).count()).toBe(1);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(2);
    await page.getByLabel("User id, email or phone").fill("erin@example.com");
    await page.getByRole("button", { name: "Search" }).click();
    await onScreen("Users");
    await expect.poll(() => page.locator("tbody tr").allTextContents()).toEqual([expect.stringContaining("erin@example.com")]);
    await page.getByLabel("User id, email or phone").fill("nobody-here");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("No user matches. Check the spelling, or search by email.");
    await page.getByLabel("User id, email or phone").fill("dan");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await audit("users-en");
  });

  it("a user's timeline tells alike devices apart by place and address, with metadata, groups and lists", async () => {
    await page.getByRole("link", { name: "dana" }).click();
    await onScreen("User dana");
    const devices = page.locator("table").first().locator("tbody tr");
    await expect.poll(() => devices.count()).toBe(3);
    const rows = await devices.allTextContents();
    expect(rows.filter((r) => r.includes("Chrome 142 / Windows 10"))).toHaveLength(3);
    expect(rows.some((r) => r.includes("Stockholm, Sweden") && r.includes("89.160.20.112"))).toBe(true);
    expect(rows.some((r) => r.includes("Paris, France") && r.includes("90.84.23.1"))).toBe(true);
    const facts = (await page.locator(".facts").textContent()) ?? "";
    expect(facts).toContain("Acme team");
    expect(facts).toContain("plan");
    expect(await page.locator("main").textContent()).toContain("vip · user_id = dana");
    await audit("user-en");
  });

  it("detaches a device, then erases the user and lands back on Users, saying so", async () => {
    await page
      .getByRole("button", { name: /^Detach dev_/ })
      .first()
      .click();
    await expect.poll(status).toBe("Saved.");
    await page.getByRole("button", { name: "Erase this user" }).click();
    await onScreen("Users");
    await expect.poll(status).toBe("The user's data was erased.");
    await expect.poll(() => page.locator("tbody tr").allTextContents()).toEqual([expect.stringContaining("erin")]);
  });

  it("a refused change says what failed, the server's message and what to do, next to the field; it can be dismissed", async () => {
    await open("#/lists", "Lists");
    await page.getByLabel("List id").fill("not a list id");
    await page.getByLabel("Values (one per line)").fill("x");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect
      .poll(alert)
      .toMatch(
        /^Could not add the values: Invalid id: list id must be 1-64 letters, digits, _ -\. Correct the field marked \(id\) and try again\.$/,
      );
    expect(await alert()).not.toContain("Something went wrong");
    // Beside the field, which is marked invalid and has the keyboard's focus.
    const field = page.getByLabel("List id");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-invalid"))).toBe("true");
    const describedBy = (await field.getAttribute("aria-describedby")) ?? "";
    expect(await page.locator(`#${describedBy}`).textContent()).toBe("Invalid id: list id must be 1-64 letters, digits, _ -");
    await audit("field-error-en");
    await page.getByRole("button", { name: "Dismiss this message" }).click();
    await expect.poll(alert).toBe("");
    expect(await page.getByRole("button", { name: "Dismiss this message" }).count()).toBe(0);
    // The corrected value goes through and the field is no longer marked.
    await field.fill("e2e_list");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await onScreen("List e2e_list");
  });

  it("the evaluations search says it is loading, and a failure is an error with a retry, not 'no evaluation matches'", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    await page.route("**/v3/evaluations?*", async (route) => {
      await gate;
      await route.continue();
    });
    await page.evaluate(() => {
      location.hash = "#/evaluations";
    });
    await expect.poll(() => page.locator("[aria-busy=true]").textContent()).toBe("Loading evaluations…");
    expect(await page.locator("main").textContent()).not.toContain("No evaluation matches.");
    await screenshot(page, "console-evaluations-loading-1280");
    release();
    await onScreen("Evaluations");
    await page.unroute("**/v3/evaluations?*");
    await expect.poll(() => page.locator("tbody tr").count()).toBeGreaterThan(0);

    // The server failing: the error and a way to try again.
    await page.route("**/v3/evaluations?*", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: { status: 503, code: "internal", message: "The store is unavailable right now: retry shortly" } }),
      }),
    );
    await page.getByRole("button", { name: "Search" }).click();
    await expect
      .poll(() => page.locator(".load-error").textContent())
      .toContain("Could not load the evaluations: The store is unavailable right now: retry shortly. The server could not do it");
    expect(await page.locator("main").textContent()).not.toContain("No evaluation matches.");
    await audit("evaluations-error-en");
    await page.unroute("**/v3/evaluations?*");
    await page.getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => page.locator("tbody tr").count()).toBeGreaterThan(0);

    // A filter the server refuses is marked where it was typed; a search that finds nothing says so.
    await page.getByLabel("IP address").fill("not-an-ip");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.getByLabel("IP address").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("IP address").fill("");
    await page.getByLabel("User id").fill("nobody-at-all");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("No evaluation matches.");
  });

  it("the audit log shows a change field by field: before and after of what changed only", async () => {
    const policy = ((await api("GET", "/v3/policies")) as { data: { id: string; name: string }[] }).data.find(
      (p) => p.name === "Deny nobody (e2e)",
    )!;
    await api("PATCH", `/v3/policies/${policy.id}`, { enabled: true, priority: 1200 });
    await open("#/audit", "Audit log");
    const diff = page.locator("table.diff").first();
    // The two fields changed (and the policy's own updatedAt); none of those that stayed the same.
    await expect
      .poll(() => diff.locator("tbody tr").allTextContents())
      .toEqual(expect.arrayContaining(["enabledfalsetrue", "priority11001200", expect.stringMatching(/^updatedAt/)]));
    const fields = await diff.locator("tbody th").allTextContents();
    for (const unchanged of ["name", "actions", "conditions", "verdict", "createdAt"]) expect(fields).not.toContain(unchanged);
    // Both objects whole are still there, folded away.
    expect(await page.getByText("Both objects as JSON").first().isVisible()).toBe(true);
    expect(await page.locator("main textarea.json:visible").count()).toBe(0);
    await audit("audit-en");
  });

  it("secret keys show their label and when they were last used", async () => {
    await open("#/settings", "Settings");
    await page.getByLabel("Label of the new key (what it is for)").fill("billing worker");
    await page.getByRole("button", { name: "Create a secret key" }).click();
    const secret = /sk_\S+/.exec((await page.locator(".secret").textContent()) ?? "")?.[0] ?? "";
    expect(secret).toMatch(/^sk_/);
    const row = page.locator("tr", { hasText: "billing worker" });
    await expect.poll(() => row.textContent()).toContain("never");
    await api("GET", "/v3/settings", undefined, secret);
    await open("#/overview", "Overview");
    await open("#/settings", "Settings");
    await expect.poll(() => row.textContent()).not.toContain("never");
    await audit("settings-en");
  });

  it("on a phone the header is one compact row and the sections one scrolling row", async () => {
    await open("#/users", "Users");
    for (const [width, height] of [
      [320, 640],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      const top = await page.locator("header.top").boundingBox();
      const nav = await page.locator("nav.nav").boundingBox();
      // Logo, pickers and sign out on one line; the sections on one more: together a sixth of the screen at most.
      expect(top!.height, `header at ${width} px`).toBeLessThan(60);
      expect(nav!.y + nav!.height, `header and sections at ${width} px`).toBeLessThanOrEqual(height / 6);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      // Nothing is lost: the pickers keep their labels for screen readers, the sign-out button is there.
      expect(await page.getByLabel("Environment").count()).toBe(1);
      expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
      await screenshot(page, `console-header-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("the new and changed screens pass axe in Arabic", async () => {
    await page.locator("#lang").selectOption("ar");
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe("rtl");
    for (const [name, hash, title] of [
      ["users", "#/users", "المستخدمون"],
      ["user", "#/users/erin", "المستخدم erin"],
      ["evaluations", "#/evaluations", "التقييمات"],
      ["audit", "#/audit", "سجل التدقيق"],
      ["settings", "#/settings", "الإعدادات"],
    ] as const) {
      await open(hash, title);
      await audit(`${name}-ar`);
    }
    await page.locator("#lang").selectOption("en");
  });
});
