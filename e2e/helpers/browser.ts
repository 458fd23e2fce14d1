// Launches Debian's Chromium through playwright-core with a fresh profile per call (TOOLCHAIN.md "Browser").
// Every fresh headless profile on one machine yields the same FingerprintJS components, so a test that needs
// another device passes another user agent, viewport, locale and time zone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;

export interface BrowserOptions {
  userAgent?: string;
  viewport?: { width: number; height: number };
  locale?: string;
  timezoneId?: string;
  /** Hide the automation flag (navigator.webdriver) for "human" scenarios. */
  human?: boolean;
  /** A phone or tablet: touch support is part of the fingerprint's hardware key. */
  hasTouch?: boolean;
  isMobile?: boolean;
  deviceScaleFactor?: number;
  /** Extra Chromium flags, e.g. `--disable-3d-apis` for a machine without WebGL. */
  args?: string[];
}

export interface Browser {
  context: BrowserContext;
  profileDir: string;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** The flags this machine needs (TOOLCHAIN.md): headless, no sandbox as root, no background network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let chromiumMajor: string | undefined;

/**
 * A user agent that tells the truth about the browser's version: the server compares the user agent's Chrome version
 * with the client hints, which Chromium always fills with its own (docs/detection.md), and a user agent naming another version is
 * what a forged one looks like. Tests vary the rest of the user agent (platform, device) to make distinct devices.
 */
function truthfulVersion(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  chromiumMajor ??= /Chromium (\d+)/.exec(
    execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
  )?.[1];
  return chromiumMajor ? userAgent.replace(/Chrome\/\d+/, `Chrome/${chromiumMajor}`) : userAgent;
}

/** Opens a persistent context; pass `profileDir` to reopen an existing profile (same browser, restarted). */
export async function launchBrowser(options: BrowserOptions = {}, profileDir?: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium`);
  const dir = profileDir ?? mkdtempSync(join(tmpdir(), "tessera-e2e-profile-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...(options.human ? ["--disable-blink-features=AutomationControlled"] : []), ...(options.args ?? [])],
    userAgent: truthfulVersion(options.userAgent),
    viewport: options.viewport ?? { width: 1280, height: 800 },
    screen: options.viewport,
    locale: options.locale,
    timezoneId: options.timezoneId,
    hasTouch: options.hasTouch,
    isMobile: options.isMobile,
    deviceScaleFactor: options.deviceScaleFactor,
  });
  return {
    context,
    profileDir: dir,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      if (!profileDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
