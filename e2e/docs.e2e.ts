// The API reference page (/docs) in Chromium under the server's CSP: it loads without a console error or a
// CSP violation, renders every operation of /openapi.json, shows the padlock exactly where a secret key is needed,
// and renders policy conditions as the condition tree they are (not as "string").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { type RunningServer, startServer } from "./helpers/server.js";

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

describe("the API reference page", () => {
  it("renders every operation under the CSP without a console error, with padlocks where a secret key is needed", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP ${e.violatedDirective} ${e.sourceFile}`));
    });
    const response = await page.goto(`${server.url}/docs`);
    expect(response?.headers()["content-security-policy"]).toMatch(/style-src 'self' 'sha256-/);
    // Every operation, and every webhook event (the document's `webhooks`, one block each, listed apart).
    const webhooks = Object.keys(doc.webhooks);
    expect(webhooks).toContain("challenge.completed");
    await expect.poll(() => page.locator(".opblock").count(), { timeout: 20_000 }).toBe(operations.length + webhooks.length);
    for (const event of webhooks) expect(await page.locator(".opblock", { hasText: event }).count(), event).toBeGreaterThanOrEqual(1);

    for (const { path, method, op } of operations) {
      const block = page
        .locator(".opblock")
        .filter({ has: page.locator(`[data-path="${path}"]`) })
        .filter({ has: page.locator(".opblock-summary-method", { hasText: new RegExp(`^${method}$`, "i") }) });
      const locks = await block.locator(".authorization__btn").count();
      expect(locks, `${method.toUpperCase()} ${path}`).toBe((op.security ?? []).length > 0 ? 1 : 0);
    }

    // Policy conditions: the recursive tree, resolved.
    const create = page
      .locator(".opblock")
      .filter({ has: page.locator('[data-path="/v3/policies"]') })
      .filter({ has: page.locator(".opblock-summary-method", { hasText: /^post$/i }) });
    await create.locator(".opblock-summary").first().click();
    const body = create.locator(".opblock-section-request-body");
    await expect.poll(() => body.count(), { timeout: 10_000 }).toBe(1);
    await body.getByText("Schema", { exact: true }).click();
    await expect.poll(() => body.textContent()).toMatch(/conditions\s*(Expand all)?\s*\(object \| object \| object \| object\)/);
    await screenshot(page, "docs-policies");
    expect(problems).toEqual([]);
  });
});
