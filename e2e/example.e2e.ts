// The example customer site (examples/login) as a customer runs it: copied out of the repository, the SDK
// installed from the packed tarball, started with a development environment's keys, driven in Chromium — a headless
// browser, as customers' own end-to-end tests are, so test mode decides the verdict. Every branch of the README's login
// integration: bot refused, wrong password, challenge (code from the dev outbox) then signed in, restrict,
// challenge_and_restrict, deny, a challenge left unfinished, a replayed evaluation, Tessera down (fails closed).
// The README's snippets are the example's own code.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../sdk/src/node/index.js";
import { type Browser, launchBrowser, screenshot } from "./helpers/browser.js";
import { installPackedSdk, ROOT } from "./helpers/sdk-package.js";
import { freePort, type RunningServer, startServer } from "./helpers/server.js";

const EXAMPLE = join(ROOT, "examples", "login");
const PASSWORD = "correct horse";

let server: RunningServer;
let client: Client;
let site: { url: string; child: ChildProcess; log: () => string };
let dir: string;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  const dev = server.project.environments.development;
  client = new Client(dev.secret, { baseUrl: server.url });
  dir = mkdtempSync(join(tmpdir(), "tessera-example-"));
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes("node_modules") && !src.endsWith("package-lock.json") });
  await installPackedSdk(dir);
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["server.mjs"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      TESSERA_URL: server.url,
      TESSERA_CLIENT_ID: dev.client_id,
      TESSERA_SECRET: dev.secret,
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
  for (const deadline = Date.now() + 30_000; !/Example site on/.test(output); await new Promise((r) => setTimeout(r, 100)))
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the example site did not start:
${output}`);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  site?.child.kill();
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Puts acct_42 on exactly one test list (or none). */
async function testMode(list: string | null): Promise<void> {
  for (const l of ["test_allow", "test_deny", "test_challenge", "test_restrict", "test_challenge_and_restrict"])
    await client.removeFromList(l, { values: ["acct_42"] });
  if (list) await client.addToList(list, { values: ["acct_42"] });
}

const status = (page: Page) => page.locator("#status").textContent();

async function signIn(password = PASSWORD): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(site.url);
  await page.locator("input[name=password]").fill(password);
  await page.locator("button[type=submit]").click();
  return page;
}

/** On the hosted challenge: send the code, read it from the dev outbox (as a customer's test would), type it. */
async function passChallenge(page: Page): Promise<string> {
  await page.waitForURL(/\/challenge\/\?challenge=/, { timeout: 30_000 });
  const challengeId = new URL(page.url()).searchParams.get("challenge") ?? "";
  await page.getByRole("button", { name: "Send code" }).click();
  await page.locator("#code").waitFor();
  const r = await fetch(`${server.url}/v3/dev/outbox`, {
    headers: { authorization: `Bearer ${server.project.environments.development.secret}` },
  });
  const { data } = (await r.json()) as { data: { challenge_id: string; code: string }[] };
  const code = data.find((m) => m.challenge_id === challengeId)?.code;
  expect(code, "the code in the dev outbox").toMatch(/^\d{6}$/);
  await page.locator("#code").fill(code ?? "");
  return challengeId;
}

async function signedIn(page: Page): Promise<string> {
  await page.waitForURL(`${site.url}/account`, { timeout: 30_000 });
  return (await page.locator("#signed-in").textContent()) ?? "";
}

describe("the example site (examples/login) with the packed SDK", () => {
  it("a headless browser is refused as a bot without test mode; a wrong password is refused first", async () => {
    await testMode(null);
    const bot = await signIn();
    await expect.poll(() => status(bot), { timeout: 30_000 }).toBe("Login refused");
    const wrong = await signIn("not the password");
    await expect.poll(() => status(wrong), { timeout: 30_000 }).toBe("Wrong user id or password");
  });

  it("test_challenge: the hosted challenge with the code from the dev outbox, then signed in; the evaluation is used once", async () => {
    await testMode("test_challenge");
    const page = await signIn();
    const challengeId = await passChallenge(page);
    expect(await signedIn(page)).toBe("Signed in as acct_42, with full access.");
    await screenshot(page, "example-signed-in");
    const challenge = await client.getChallenge(challengeId);
    expect(challenge.status).toBe("completed");
    // The code went to the address the backend gave Tessera (ownContacts), not to one a browser named.
    expect(challenge.user?.email).toBe("alice@example.com");
    const evaluation = await client.getEvaluation(challenge.evaluation ?? "");
    expect(evaluation.consumed).toBe(true);
    // Replayed from anywhere else, the evaluation id signs nobody in.
    const replay = await fetch(`${site.url}/api/login/challenge-return`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ evaluation_id: evaluation.id }),
    });
    expect(replay.status).toBe(403);
  });

  it("test_restrict signs in with restricted rights; test_challenge_and_restrict does after the challenge; test_deny refuses", async () => {
    await testMode("test_restrict");
    expect(await signedIn(await signIn())).toBe("Signed in as acct_42, with restricted access: payouts and security settings are locked.");
    await testMode("test_challenge_and_restrict");
    const page = await signIn();
    await passChallenge(page);
    expect(await signedIn(page)).toMatch(/with restricted access/);
    await testMode("test_deny");
    const denied = await signIn();
    await expect.poll(() => status(denied), { timeout: 30_000 }).toBe("Login refused");
  });

  it("a challenge left unfinished signs nobody in, even coming back with its evaluation id", async () => {
    await testMode("test_challenge");
    const page = await signIn();
    await page.waitForURL(/\/challenge\/\?challenge=/, { timeout: 30_000 });
    const challenge = await client.getChallenge(new URL(page.url()).searchParams.get("challenge") ?? "");
    // Straight back to the site with the evaluation id, as if the challenge had passed.
    await page.goto(`${site.url}/?evaluation=${challenge.evaluation}`);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe("Verification failed");
    expect(page.url()).toBe(`${site.url}/`);
  });

  it("with Tessera down the login fails closed, and works again once it is back", async () => {
    await testMode("test_allow");
    await server.stop();
    const down = await signIn();
    await expect.poll(() => status(down), { timeout: 60_000 }).toMatch(/^Sign-in is unavailable right now \(network_error\)/);
    await server.start();
    expect(await signedIn(await signIn())).toBe("Signed in as acct_42, with full access.");
  });
});

describe("the README's login integration", () => {
  /** The code between `// #region name` and `// #endregion name`, without its common indentation. */
  function region(file: string, name: string): string {
    const text = readFileSync(join(EXAMPLE, file), "utf8");
    const body = text.split(`// #region ${name}\n`)[1]?.split(`// #endregion ${name}`)[0];
    if (!body) throw new Error(`no region ${name} in ${file}`);
    return body.trimEnd();
  }

  it("shows the example's own code, so what a stranger copies is what CI runs", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8").replace(/^ {3}/gm, "");
    for (const [file, name] of [
      ["public/login.js", "browser-login"],
      ["server.mjs", "login"],
      ["server.mjs", "challenge-return"],
    ] as const)
      expect(readme, `${file} ${name}`).toContain(region(file, name));
  });
});
