// The server-side bot signals (docs/detection.md) on what real browsers send — every honest browser below must pass clean,
// privacy browsers included — and on what stealth headless browsers and forged user agents send.
import { describe, expect, it } from "vitest";
import { geo } from "../geo/index.js";
import type { EvaluationInput } from "../pipeline/context.js";
import { collectSignals } from "./index.js";
import type { SignalContext } from "./types.js";
import { userAgentFamily } from "./user-agent.js";

interface Browser {
  ua: string;
  headers?: Record<string, string>;
  components?: Record<string, unknown>;
  window?: Record<string, number>;
}

const signalsOf = (b: Browser) =>
  collectSignals({
    input: {
      signals: {
        components: Object.fromEntries(Object.entries(b.components ?? {}).map(([k, v]) => [k, { value: v }])),
        ...(b.window ? { window: b.window } : {}),
      },
      headers: b.headers ?? {},
      userAgent: b.ua,
      at: Date.UTC(2026, 10, 1),
    } as unknown as EvaluationInput,
    geo: geo(),
  } as SignalContext);

const hints = (platform: string, brands: string, mobile = "?0") => ({
  "sec-ch-ua": brands,
  "sec-ch-ua-platform": `"${platform}"`,
  "sec-ch-ua-mobile": mobile,
});
const CHROME_142 = '"Chromium";v="142", "Google Chrome";v="142", "Not_A Brand";v="99"';
const desktopWindow = {
  outer_width: 1512,
  outer_height: 945,
  inner_width: 1512,
  inner_height: 830,
  screen_width: 1512,
  screen_height: 982,
};
const TOUCH = { maxTouchPoints: 5, touchEvent: true, touchStart: true };
const gpu = (renderer: string) => ({ vendor: "WebKit", renderer: "WebKit WebGL", vendorUnmasked: "x", rendererUnmasked: renderer });

const HONEST: Record<string, Browser> = {
  "Chrome on Windows": {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    headers: hints("Windows", CHROME_142),
    components: {
      platform: "Win32",
      userAgentData: { brands: ["Google Chrome", "Not_A Brand"], mobile: false, platform: "Windows" },
      webGlBasics: gpu("ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002504) Direct3D11 vs_5_0 ps_5_0, D3D11)"),
      hardwareConcurrency: 16,
      deviceMemory: 8,
      screenResolution: [2560, 1440],
    },
    window: { outer_width: 1920, outer_height: 1040, inner_width: 1920, inner_height: 945, screen_width: 2560, screen_height: 1440 },
  },
  "Edge on Windows": {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36 Edg/142.0.0.0",
    headers: hints("Windows", '"Chromium";v="142", "Microsoft Edge";v="142", "Not_A Brand";v="99"'),
    components: { platform: "Win32", userAgentData: { brands: ["Microsoft Edge", "Not_A Brand"], mobile: false, platform: "Windows" } },
  },
  "Chrome on an Apple Silicon Mac": {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    headers: hints("macOS", CHROME_142),
    components: {
      platform: "MacIntel",
      webGlBasics: gpu("ANGLE (Apple, ANGLE Metal Renderer: Apple M2, Unspecified Version)"),
      deviceMemory: 8,
    },
    window: desktopWindow,
  },
  "Brave on Windows (farbled cores)": {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    headers: hints("Windows", '"Chromium";v="142", "Brave";v="142", "Not_A Brand";v="99"'),
    components: {
      platform: "Win32",
      userAgentData: { brands: ["Brave", "Not_A Brand"], mobile: false, platform: "Windows" },
      hardwareConcurrency: 3,
    },
  },
  "Opera on Windows": {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36 OPR/125.0.0.0",
    headers: hints("Windows", '"Chromium";v="141", "Opera";v="125", "Not_A Brand";v="99"'),
    components: { platform: "Win32" },
  },
  "Chrome on an Android phone": {
    ua: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile Safari/537.36",
    headers: hints("Android", CHROME_142, "?1"),
    components: {
      platform: "Linux armv81",
      userAgentData: { brands: ["Google Chrome", "Not_A Brand"], mobile: true, platform: "Android" },
      touchSupport: TOUCH,
      webGlBasics: gpu("Adreno (TM) 740"),
      deviceMemory: 8,
    },
    window: { outer_width: 412, outer_height: 915, inner_width: 412, inner_height: 915, screen_width: 412, screen_height: 915 },
  },
  "Chrome on Android asking for the desktop site": {
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    headers: hints("Android", CHROME_142, "?0"),
    components: { platform: "Linux armv81", touchSupport: TOUCH },
  },
  "Samsung Internet": {
    ua: "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36",
    headers: hints("Android", '"Chromium";v="125", "Samsung Internet";v="27", "Not.A/Brand";v="24"', "?1"),
    components: { platform: "Linux aarch64", touchSupport: TOUCH },
  },
  "Chrome on a Chromebook": {
    ua: "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    headers: hints("Chrome OS", CHROME_142),
    components: {
      platform: "Linux x86_64",
      hardwareConcurrency: 2,
      deviceMemory: 4,
      webGlBasics: gpu("ANGLE (ARM, Mali-G57, OpenGL ES 3.2)"),
    },
  },
  "Safari on a Mac": {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
    components: { platform: "MacIntel", webGlBasics: gpu("Apple GPU"), hardwareConcurrency: 8 },
    window: desktopWindow,
  },
  "Safari on an iPad asking for the desktop site": {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
    components: {
      platform: "iPad",
      touchSupport: TOUCH,
      webGlBasics: gpu("Apple GPU"),
    },
    window: { outer_width: 1180, outer_height: 820, inner_width: 1180, inner_height: 820, screen_width: 1180, screen_height: 820 },
  },
  "Safari on an iPhone": {
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
    components: {
      platform: "iPhone",
      touchSupport: TOUCH,
      webGlBasics: gpu("Apple GPU"),
    },
    window: { outer_width: 0, outer_height: 0, inner_width: 390, inner_height: 664, screen_width: 390, screen_height: 844 },
  },
  "Chrome on an iPhone": {
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/142.0.0.0 Mobile/15E148 Safari/604.1",
    components: { platform: "iPhone", touchSupport: TOUCH },
  },
  "Firefox on Linux": {
    ua: "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:144.0) Gecko/20100101 Firefox/144.0",
    components: { platform: "Linux x86_64", webGlBasics: gpu("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"), hardwareConcurrency: 8 },
    window: desktopWindow,
  },
  "Firefox with resistFingerprinting on Linux (spoofs Windows everywhere)": {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0",
    components: { platform: "Win32", hardwareConcurrency: 8, webGlBasics: gpu("Mozilla"), screenResolution: [1366, 768] },
    window: { outer_width: 1366, outer_height: 768, inner_width: 1400, inner_height: 900, screen_width: 1366, screen_height: 768 },
  },
  "Firefox on Android": {
    ua: "Mozilla/5.0 (Android 14; Mobile; rv:144.0) Gecko/144.0 Firefox/144.0",
    components: { platform: "Linux armv81", touchSupport: TOUCH },
  },
  "a Linux desktop without GPU drivers (llvmpipe): weak evidence, not a mismatch": {
    ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    headers: hints("Linux", CHROME_142),
    components: { platform: "Linux x86_64", webGlBasics: gpu("llvmpipe (LLVM 15.0.6, 256 bits)"), hardwareConcurrency: 2 },
    window: { outer_width: 1280, outer_height: 1000, inner_width: 1280, inner_height: 900, screen_width: 1280, screen_height: 1024 },
  },
  "an old SDK that sends nothing but a user agent": {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
  },
};

/** A stealth headless Chromium 156 on a Linux server, no automation markers, claiming Chrome 131 on Windows. */
const STEALTH: Browser = {
  ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  headers: hints("Linux", '"Not:A-Brand";v="8", "Chromium";v="156"'),
  components: {
    platform: "Linux x86_64",
    userAgentData: { brands: ["Not:A-Brand"], mobile: false, platform: "Linux" },
    webGlBasics: gpu("ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)"),
    hardwareConcurrency: 2,
    deviceMemory: 8,
    screenResolution: [800, 600],
  },
  window: { outer_width: 800, outer_height: 600, inner_width: 800, inner_height: 600, screen_width: 800, screen_height: 600 },
};

describe("honest browsers pass every server-side bot signal", () => {
  for (const [name, browser] of Object.entries(HONEST)) {
    it(name, () => {
      const s = signalsOf(browser);
      expect(s.clientHints.mismatches).toEqual([]);
      expect(s.window.headless).toEqual([]);
      expect(s.hardware.implausible).toEqual([]);
      if (!name.includes("llvmpipe")) expect(s.renderer.software).toBe(false);
    });
  }
});

describe("stealth headless and forged user agents", () => {
  it("a stealth headless Chromium trips every signal without a single client marker", () => {
    const s = signalsOf(STEALTH);
    expect(s.clientHints.mismatches).toEqual(expect.arrayContaining(["platform_hint", "version_hint", "navigator_platform"]));
    expect(s.renderer).toMatchObject({ software: true });
    expect(s.window.headless).toEqual(["headless_screen"]);
    expect(s.automation.detected).toBe(false);
  });

  it("each disagreement is named", () => {
    const win = HONEST["Chrome on Windows"] as Browser;
    const mismatches = (b: Partial<Browser>) => signalsOf({ ...win, ...b }).clientHints.mismatches;
    expect(mismatches({ headers: hints("Linux", CHROME_142) })).toEqual(["platform_hint"]);
    expect(mismatches({ headers: hints("Windows", CHROME_142, "?1") })).toEqual(["mobile_hint"]);
    expect(mismatches({ components: { platform: "MacIntel" } })).toEqual(["navigator_platform"]);
    expect(mismatches({ headers: hints("Windows", '"Chromium";v="120", "Google Chrome";v="120"') })).toEqual(["version_hint"]);
    expect(
      mismatches({
        ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0",
        components: { platform: "Win32" },
      }),
    ).toEqual(["hints_from_chromium"]);
    expect(mismatches({ ua: `${win.ua} Edg/142.0.0.0` })).toEqual(["brand_hint"]);
    const phone = HONEST["Chrome on an Android phone"] as Browser;
    expect(signalsOf({ ...phone, headers: hints("Android", CHROME_142, "?0") }).clientHints.mismatches).toEqual(["mobile_hint"]);
  });

  it("hardware no device has", () => {
    const implausible = (components: Record<string, unknown>, ua = HONEST["Chrome on Windows"]?.ua as string) =>
      signalsOf({ ua, components }).hardware.implausible;
    expect(implausible({ hardwareConcurrency: 0 })).toEqual(["cores"]);
    expect(implausible({ hardwareConcurrency: 6.5 })).toEqual(["cores"]);
    expect(implausible({ deviceMemory: 3 })).toEqual(["memory"]);
    expect(implausible({ deviceMemory: 16 })).toEqual([]);
    expect(implausible({ screenResolution: [0, 0] })).toEqual(["screen"]);
    const iphone = HONEST["Safari on an iPhone"]?.ua as string;
    expect(implausible({ touchSupport: { maxTouchPoints: 0, touchEvent: false, touchStart: false } }, iphone)).toEqual([
      "phone_without_touch",
    ]);
    expect(implausible({ webGlBasics: gpu("Google SwiftShader") }, iphone)).toEqual(["phone_software_renderer"]);
    const mac = HONEST["Safari on a Mac"]?.ua as string;
    expect(implausible({ webGlBasics: gpu("ANGLE (NVIDIA, NVIDIA GeForce GTX 1080 Direct3D11 vs_5_0 ps_5_0, D3D11)") }, mac)).toEqual([
      "gpu_of_another_os",
    ]);
    expect(implausible({ webGlBasics: gpu("ANGLE (Apple, ANGLE Metal Renderer: Apple M1, Unspecified Version)") })).toEqual([
      "gpu_of_another_os",
    ]);
  });

  it("software renderers by name; no WebGL is no evidence", () => {
    for (const r of ["Google SwiftShader", "llvmpipe (LLVM 15.0.6, 256 bits)", "Mesa OffScreen", "Microsoft Basic Render Driver"])
      expect(signalsOf({ ua: "x", components: { webGlBasics: gpu(r) } }).renderer.software, r).toBe(true);
    expect(signalsOf({ ua: "x", components: { webGlBasics: -1 } }).renderer).toEqual({ software: false });
  });

  it("a headless window: an outer window of 0×0 on a desktop user agent, not on a phone", () => {
    const zero = { outer_width: 0, outer_height: 0, inner_width: 1280, inner_height: 720, screen_width: 1920, screen_height: 1080 };
    expect(signalsOf({ ua: HONEST["Chrome on Windows"]?.ua as string, window: zero }).window.headless).toEqual(["zero_outer_window"]);
    expect(signalsOf({ ua: HONEST["Chrome on an Android phone"]?.ua as string, window: zero }).window.headless).toEqual([]);
    // A frameless window on a real screen is a fullscreen one.
    const full = { outer_width: 1920, outer_height: 1080, inner_width: 1920, inner_height: 1080, screen_width: 1920, screen_height: 1080 };
    expect(signalsOf({ ua: HONEST["Chrome on Windows"]?.ua as string, window: full }).window.headless).toEqual([]);
  });
});

describe("user agent families", () => {
  it("reads the operating system, the engine, the Chromium version and phones", () => {
    expect(userAgentFamily(HONEST["Edge on Windows"]?.ua as string)).toEqual({
      os: "windows",
      engine: "blink",
      chromium: 142,
      phone: false,
      edge: true,
    });
    expect(userAgentFamily(HONEST["Chrome on an iPhone"]?.ua as string)).toMatchObject({ os: "ios", engine: "webkit", phone: true });
    expect(userAgentFamily(HONEST["Firefox on Android"]?.ua as string)).toMatchObject({ os: "android", engine: "gecko", phone: true });
    expect(userAgentFamily(HONEST["Safari on a Mac"]?.ua as string)).toMatchObject({ os: "mac", engine: "webkit", phone: false });
    expect(userAgentFamily("python-requests/2.31.0")).toMatchObject({ os: "other", engine: "other" });
  });
});
