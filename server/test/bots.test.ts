// Server-side bot evidence under the default policies (docs/detection.md), on both stores: a stealth headless browser with no
// client-side markers is challenged, and denied from a datacenter; honest browsers, privacy browsers among them, and a
// lone weak signal are let in.
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

const HOME = "81.2.69.142"; // GB, residential
// Another household: HOME has seen the bots' unconfirmed accounts from never-seen browsers, which is itself a sign.
const OTHER_HOME = "90.75.247.205"; // ES, residential
const AWS = "3.5.1.1"; // Amazon (hosting)

const STEALTH_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const HEADLESS_HINTS = {
  "sec-ch-ua": '"Not:A-Brand";v="8", "Chromium";v="156"',
  "sec-ch-ua-platform": '"Linux"',
  "sec-ch-ua-mobile": "?0",
};
const SWIFTSHADER = {
  renderer: "WebKit WebGL",
  rendererUnmasked: "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)",
};
const HEADLESS_WINDOW = { outer_width: 800, outer_height: 600, inner_width: 800, inner_height: 600, screen_width: 800, screen_height: 600 };

describeStores("server-side bot evidence on %s", (kind) => {
  let t: TestApp;
  let n = 0;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: "1" });
  });
  afterAll(async () => t?.close());

  async function login(req: {
    ip: string;
    ua: string;
    headers?: Record<string, string>;
    components?: Record<string, unknown>;
    window?: Record<string, number>;
    /** The browser's zone (the test components' is Paris): honest ones here are set to their home's. */
    timezone?: string;
  }): Promise<Evaluation> {
    const seed = `${kind}-${++n}`;
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "user-agent": req.ua, "x-forwarded-for": req.ip, ...req.headers },
      payload: {
        client_id: t.clientId,
        user: `bot-${seed}`,
        signals: {
          components: fakeComponents(seed, req.components),
          visitor_token: `tok-${seed}-xxxxxxxx`,
          ...(req.window ? { window: req.window } : {}),
          ...(req.timezone ? { timezone: req.timezone } : {}),
        },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const ev = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    const out = strict(Evaluation).parse(ev.json());
    // The backend confirms a login it let in (consuming the verdict), as a real one does: its account is no guess.
    if (out.verdict === "allow") {
      const consumed = await t.app.inject({ method: "POST", url: `/v3/evaluations/${out.id}/consume`, headers: t.auth });
      expect(consumed.statusCode, consumed.body).toBe(200);
    }
    return out;
  }

  const stealth = (ip: string) =>
    login({
      ip,
      ua: STEALTH_UA,
      headers: HEADLESS_HINTS,
      components: { webGlBasics: SWIFTSHADER, hardwareConcurrency: 2 },
      window: HEADLESS_WINDOW,
    });

  it("a stealth headless browser without client markers is challenged from a home address", async () => {
    const ev = await stealth(HOME);
    expect(ev.checks).toMatchObject({
      client_automation: false,
      user_agent_mismatch: true,
      software_renderer: true,
      headless_window: true,
    });
    expect(ev.risks?.find((r) => r.name === "bot")?.severity).toBe("maximum");
    expect(ev.verdict).toBe("challenge");
    expect(ev.policy?.name).toBe("Challenge automation");
  });

  it("and denied from a datacenter: the server's own evidence agrees", async () => {
    const ev = await stealth(AWS);
    expect(ev.verdict).toBe("deny");
    expect(ev.policy?.name).toBe("Deny bots");
    expect(ev.reasons).toEqual(expect.arrayContaining(["user_agent_mismatch", "datacenter_ip"]));
  });

  it("a forged user agent alone, or a software renderer alone, is let in", async () => {
    // A user-agent switcher: Windows claimed, Linux reported.
    expect((await login({ ip: HOME, ua: STEALTH_UA.replace("131", "142"), timezone: "Europe/London" })).verdict).toBe("allow");
    // A Linux desktop without GPU drivers, on a cloud desktop.
    const linux = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
    const onLinux = { platform: "Linux x86_64", userAgentData: undefined, webGlBasics: SWIFTSHADER };
    expect((await login({ ip: AWS, ua: linux, components: onLinux, timezone: "America/New_York" })).verdict).toBe("allow");
  });

  it("privacy browsers are let in: Firefox resistFingerprinting, Brave farbling", async () => {
    const rfp = await login({
      ip: OTHER_HOME,
      ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0",
      // resistFingerprinting reports UTC, no country's zone.
      timezone: "UTC",
      // Firefox has no userAgentData (the test browsers' components are a Chrome's).
      components: {
        platform: "Win32",
        userAgentData: undefined,
        hardwareConcurrency: 8,
        webGlBasics: { renderer: "Mozilla", vendor: "Mozilla" },
      },
      window: { outer_width: 1366, outer_height: 768, inner_width: 1400, inner_height: 900, screen_width: 1366, screen_height: 768 },
    });
    expect(rfp.verdict, JSON.stringify([rfp.policy, rfp.checks])).toBe("allow");
    expect(rfp.checks).toMatchObject({ user_agent_mismatch: false, implausible_hardware: false, headless_window: false, is_bot: false });
    const brave = await login({
      ip: OTHER_HOME,
      ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
      timezone: "Europe/Madrid",
      headers: {
        "sec-ch-ua": '"Chromium";v="142", "Brave";v="142", "Not_A Brand";v="99"',
        "sec-ch-ua-platform": '"Windows"',
        "sec-ch-ua-mobile": "?0",
      },
      components: {
        platform: "Win32",
        hardwareConcurrency: 3,
        userAgentData: { brands: ["Brave", "Not_A Brand"], mobile: false, platform: "Windows" },
      },
    });
    expect(brave.verdict, JSON.stringify([brave.policy, brave.checks])).toBe("allow");
    expect(brave.checks).toMatchObject({ user_agent_mismatch: false, implausible_hardware: false, is_bot: false });
  });

  it("window sizes outside the contract are a 400 naming the field, never a 500", async () => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, signals: { components: {}, window: { outer_width: -1 } } },
    });
    expect(r.statusCode).toBe(400);
    expect(r.body).toContain("window");
  });
});
