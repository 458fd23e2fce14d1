// A site written against the hosted service (examples/migrating: its browser script's `new Rupt({ clientId })` and
// `rupt.evaluate.*`, its backend client's `new RuptAPI(secret, { domain })` and documented calls) run on Tessera with
// only the compatibility switch and the keys changed (docs/migrating.md), copied out of the repository with the packed
// SDK, driven in Chromium. Test mode decides the verdicts (a headless browser is otherwise refused as a bot): a login
// let in and consumed, so the browser is one of the user's devices, listed; a report that adds to a list; a challenged
// login through the hosted challenge page with the code from the dev outbox, back at the site's success URL.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../sdk/src/node/index.js";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { installPackedSdk, ROOT } from "./helpers/sdk-package.js";
import { freePort, type RunningServer, startServer } from "./helpers/server.js";

const EXAMPLE = join(ROOT, "examples", "migrating");

let server: RunningServer;
let client: Client;
let site: { url: string; child: ChildProcess; log: () => string };
let dir: string;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  const dev = server.project.environments.development;
  client = new Client(dev.secret, { baseUrl: server.url });
  dir = mkdtempSync(join(tmpdir(), "tessera-migrating-"));
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes("node_modules") && !src.endsWith("package-lock.json") });
  await installPackedSdk(dir);
  const port = await freePort();
  let output = "";
  // The keys, and the script's address: the only settings that differ from the site's hosted-service configuration.
  const child = spawn(process.execPath, ["server.mjs"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      RUPT_DOMAIN: server.url,
      RUPT_SCRIPT: `${server.url}/sdk/v3/rupt.js`,
      RUPT_CLIENT_ID: dev.client_id,
      RUPT_SECRET: dev.secret,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  site = { url: `http://localhost:${port}`, child, log: () => output };
  for (const deadline = Date.now() + 30_000; !/Migrating example on/.test(output); await new Promise((r) => setTimeout(r, 100)))
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the example site did not start:\n${output}`);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  site?.child.kill();
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Puts the user on exactly one test list (or none). */
async function testMode(user: string, list: string | null): Promise<void> {
  for (const l of ["test_allow", "test_deny", "test_challenge", "test_restrict", "test_challenge_and_restrict"])
    await client.removeFromList(l, { values: [user] });
  if (list) await client.addToList(list, { values: [user] });
}

async function signIn(user: string, password: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(site.url);
  await page.locator("input[name=user]").fill(user);
  await page.locator("input[name=password]").fill(password);
  await page.locator("button[type=submit]").click();
  return page;
}

describe("a site written for the hosted service, on Tessera through the compatibility layer", () => {
  it("the backend's updateUser synced the accounts at start: contacts, merged metadata, group objects", async () => {
    const r = await fetch(`${server.url}/v3/users/acct_42`, {
      headers: { authorization: `Bearer ${server.project.environments.development.secret}` },
    });
    expect(await r.json()).toMatchObject({
      email: "alice@example.com",
      metadata: { plan: "pro" },
      groups: [{ id: "org_acme", name: "Acme Inc." }],
    });
  });

  it("a login let in is consumed; the browser is then one of the user's devices, listed; a report adds to a list", async () => {
    await testMode("acct_42", "test_allow");
    const warnings: string[] = [];
    const page = await signIn("acct_42", "correct horse");
    page.on("console", (m) => {
      if (m.type() === "warning") warnings.push(m.text());
    });
    await page.waitForURL(`${site.url}/account`, { timeout: 30_000 });
    expect(await page.locator("#signed-in").textContent()).toBe("Signed in as acct_42.");
    await page.locator("#devices li").first().waitFor({ timeout: 30_000 });
    expect(await page.locator("#devices li").count()).toBeGreaterThanOrEqual(1);
    const devices = await client.getUserDevices("acct_42");
    expect(devices.filter((d) => d.status === "attached").length).toBeGreaterThanOrEqual(1);
    // The login it came from was consumed by the site's backend: that is what vouched for this browser.
    const { data } = await (
      await fetch(`${server.url}/v3/evaluations?user=acct_42&action=login`, {
        headers: { authorization: `Bearer ${server.project.environments.development.secret}` },
      })
    ).json();
    expect(data[0]?.consumed).toBe(true);
    // What a migrating team sees in the console on evaluate.access without a user_token.
    await expect.poll(() => warnings.join("\n"), { timeout: 10_000 }).toMatch(/evaluate\.access counts this browser .* vouched for it/);
    await screenshot(page, "migrating-account");

    await page.getByRole("button", { name: "Report acct_7" }).click();
    await expect.poll(() => page.locator("#status").textContent(), { timeout: 30_000 }).toBe("Reported");
    const list = await (
      await fetch(`${server.url}/v3/lists/reported_users`, {
        headers: { authorization: `Bearer ${server.project.environments.development.secret}` },
      })
    ).json();
    expect(list.data).toEqual([expect.objectContaining({ value: "acct_7", comment: "reported by acct_42" })]);
    await page.close();
  });

  it("a challenged login completes through the hosted challenge page and comes back to the site's success URL", async () => {
    await testMode("acct_7", "test_challenge");
    const page = await signIn("acct_7", "battery staple");
    await page.waitForURL(/\/challenge\/\?challenge=/, { timeout: 30_000 });
    const challengeId = new URL(page.url()).searchParams.get("challenge") ?? "";
    // Once the challenge is passed the account page evaluates access too: let that one in, as the site's test would.
    await page.route("**/api/login/return", async (route) => {
      await testMode("acct_7", "test_allow");
      await route.continue();
    });
    const back = page.waitForURL(/\/return\?evaluation=/, { timeout: 30_000 });
    await page.getByRole("button", { name: "Send code" }).click();
    await page.locator("#code").waitFor();
    const r = await fetch(`${server.url}/v3/dev/outbox`, {
      headers: { authorization: `Bearer ${server.project.environments.development.secret}` },
    });
    const outbox = (await r.json()) as { data: { challenge_id: string; code: string; to?: string }[] };
    const code = outbox.data.find((m) => m.challenge_id === challengeId)?.code;
    expect(code, "the code in the dev outbox").toMatch(/^\d{6}$/);
    await page.locator("#code").fill(code ?? "");
    // The success_url the page gave `new Rupt(…)`: the hosted challenge sends the browser back there.
    await back;
    await page.waitForURL(`${site.url}/account`, { timeout: 30_000 });
    expect(await page.locator("#signed-in").textContent()).toBe("Signed in as acct_7.");
    const challenge = await client.getChallenge(challengeId);
    expect(challenge.status).toBe("completed");
    // The code went to the address the backend's updateUser gave, not one a browser named.
    expect(challenge.user?.email).toBe("bob@example.com");
    expect((await client.getEvaluation(challenge.evaluation ?? "")).consumed).toBe(true);
  });
});
