// What FingerprintJS 5.2 reports for one browser on one machine: each component as its source in
// node_modules/@fingerprintjs/fingerprintjs/dist/fp.esm.js computes it on that engine and version — the canvas
// "skipped" by Safari 17+ and Firefox 120+, audio -4 in Safari 17+ and Samsung Internet 26+, no screen size or frame in
// Safari 17+, no frame and tiered cores in Firefox 143+, one language in Chromium 86+, no unmasked renderer in Gecko,
// deviceMemory and userAgentData in Chromium only, Brave's farbling — plus the user agent string the browser sends.
// Rendered images and parameter dumps are digests of what they depend on, so machines that would render alike do.
import { type BrowserId, type DeviceModel, FONTS, type Os } from "./catalogue.js";
import { digest, stream } from "./random.js";

/** One browser profile on one machine, as it is at one visit. */
export interface BrowserState {
  model: DeviceModel;
  browser: BrowserId;
  /** Major version (Safari: the OS build's Safari, see safariVersion). */
  version: number;
  osBuild: string;
  cores: number;
  ramGb: number;
  /** Index into model.screens (the owner's scaling), or an external monitor when docked. */
  screen: number;
  docked: boolean;
  externalScreen: [number, number];
  /** Fonts installed beyond the OS's (Office, Adobe, CJK packs, ...). */
  extraFonts: string[];
  /** Text size setting (desktop default font size, iOS Dynamic Type): 0 default, 1 larger. */
  textSize: number;
  dockSize: number;
  taskbar: number;
  tz: string;
  lang: string;
  langs: string[];
  locale: string;
  reducedMotion: boolean;
  applePay: boolean;
  contentBlocker: string[];
  pdfViewer: boolean;
  /** A private window (or Firefox's private mode): fonts limited to the OS's. */
  private: boolean;
  /** Brave's farbling session (a browser restart draws a new one). */
  farbleSession: number;
  /** Firefox with privacy.resistFingerprinting: UTC time zone, 2 cores, en-US, the OS's fonts, the window as screen. */
  rfp?: boolean;
}

export const ENGINE: Record<BrowserId, "blink" | "webkit" | "gecko"> = {
  chrome: "blink",
  edge: "blink",
  brave: "blink",
  samsung: "blink",
  firefox: "gecko",
  safari: "webkit",
  "chrome-ios": "webkit",
};

const BRAND: Partial<Record<BrowserId, string>> = {
  chrome: "Google Chrome",
  edge: "Microsoft Edge",
  brave: "Brave",
  samsung: "Samsung Internet",
};

/** The browser's current major versions (late 2026) and their share; an update moves one version on. */
export const BROWSER_VERSIONS: Record<Exclude<BrowserId, "safari">, Array<readonly [number, number]>> = {
  chrome: [
    [142, 0.7],
    [141, 0.3],
  ],
  edge: [
    [142, 0.7],
    [141, 0.3],
  ],
  brave: [
    [142, 0.8],
    [141, 0.2],
  ],
  "chrome-ios": [
    [142, 0.8],
    [141, 0.2],
  ],
  firefox: [
    [145, 0.7],
    [144, 0.3],
  ],
  samsung: [
    [29, 0.8],
    [28, 0.2],
  ],
};

/** Safari comes with the OS: its version is the build's. */
export function safariVersion(osBuild: string): string {
  return osBuild.startsWith("15.") || osBuild.startsWith("14.") ? "26.0" : osBuild.split(".").slice(0, 2).join(".");
}

/** The family a browser is reported under: browser and OS, as a person would name them. */
export function familyOf(browser: BrowserId, os: Os): string {
  const b = {
    chrome: "Chrome",
    edge: "Edge",
    brave: "Brave",
    samsung: "Samsung Internet",
    firefox: "Firefox",
    safari: "Safari",
    "chrome-ios": "Chrome",
  }[browser];
  const o = { windows: "Windows", macos: "macOS", linux: "Linux", android: "Android", ios: "iOS", ipados: "iPadOS" }[os];
  return `${b}/${o}`;
}

const isMobileOs = (os: Os) => os === "android" || os === "ios" || os === "ipados";

export function userAgent(s: BrowserState): string {
  const { model, browser, version, osBuild } = s;
  const v = `${version}.0.0.0`;
  const iosVer = osBuild.startsWith("26") ? "18_6" : osBuild.replaceAll(".", "_");
  switch (model.os) {
    case "windows":
      if (browser === "firefox") return `Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:${version}.0) Gecko/20100101 Firefox/${version}.0`;
      return `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36${browser === "edge" ? ` Edg/${v}` : ""}`;
    case "macos":
      if (browser === "firefox")
        return `Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:${version}.0) Gecko/20100101 Firefox/${version}.0`;
      if (browser === "safari")
        return `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${safariVersion(osBuild)} Safari/605.1.15`;
      return `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36`;
    case "linux":
      if (browser === "firefox") return `Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:${version}.0) Gecko/20100101 Firefox/${version}.0`;
      return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36`;
    case "android":
      if (browser === "samsung")
        return `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/${version}.0 Chrome/136.0.0.0 Mobile Safari/537.36`;
      return `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} ${model.kind === "tablet" ? "" : "Mobile "}Safari/537.36`;
    case "ios":
      if (browser === "chrome-ios")
        return `Mozilla/5.0 (iPhone; CPU iPhone OS ${iosVer} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/${version}.0.7444.46 Mobile/15E148 Safari/604.1`;
      return `Mozilla/5.0 (iPhone; CPU iPhone OS ${iosVer} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${safariVersion(osBuild)} Mobile/15E148 Safari/604.1`;
    case "ipados":
      // iPadOS asks for desktop sites: Safari sends the Mac user agent.
      if (browser === "chrome-ios")
        return `Mozilla/5.0 (iPad; CPU OS ${iosVer} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/${version}.0.7444.46 Mobile/15E148 Safari/604.1`;
      return `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${safariVersion(osBuild)} Safari/605.1.15`;
  }
}

/** Chromium's canvas and WebGL output changes now and then between releases (Skia, ANGLE): every third release here. */
const blinkEpoch = (version: number) => Math.floor(version / 3);

/** The components FingerprintJS collects, each as `{ value }` (the SDK strips errors and durations). */
export function components(s: BrowserState): Record<string, unknown> {
  const { model, browser, version, osBuild } = s;
  const os = model.os;
  const engine = ENGINE[browser];
  const mobile = isMobileOs(os);
  const osMajor = osBuild.split(".")[0] as string;
  const safari17 = browser === "safari"; // every Safari in use is ≥ 17: isWebKit616OrNewer && isSafariWebKit
  const gecko120 = engine === "gecko" && version >= 120;
  const gecko143 = engine === "gecko" && version >= 143;
  const samsung26 = browser === "samsung" && version >= 26;
  const brave = browser === "brave";
  const farble = stream(s.farbleSession, "farble", model.id, s.cores);
  const c: Record<string, unknown> = {};

  if (engine === "blink") {
    c.userAgentData = {
      brands: [BRAND[browser]],
      mobile: model.kind === "mobile",
      platform: { windows: "Windows", macos: "macOS", linux: "Linux", android: "Android" }[os as "windows"] ?? "Unknown",
      architecture: os === "android" ? "" : model.arch,
      bitness: os === "android" ? "" : "64",
      model: model.androidModel ?? "",
      platformVersion:
        os === "windows"
          ? osBuild.startsWith("10")
            ? "10.0.0"
            : osBuild.endsWith("24H2")
              ? "19.0.0"
              : "15.0.0"
          : os === "macos"
            ? `${osBuild}.0`.split(".").slice(0, 3).join(".")
            : os === "android"
              ? `${osBuild}.0.0`
              : "6.8.0",
    };
  }

  // Fonts: WebKit exposes system fonts only; Brave and private windows of Firefox restrict to the OS's fonts.
  const base: readonly string[] = os === "ipados" ? FONTS.ios : FONTS[os === "ios" ? "ios" : os];
  const rfp = engine === "gecko" && s.rfp === true;
  const restricted = engine === "webkit" || brave || (s.private && engine === "gecko") || mobile || rfp;
  c.fonts = [...new Set([...base, ...(restricted ? [] : s.extraFonts)])].sort();
  if (engine === "webkit" || os === "android") c.domBlockers = [...s.contentBlocker].sort();

  const fontEpoch = `${os}-${osMajor}`;
  const pref = (k: number) =>
    Math.round((140 + (parseInt(digest(fontEpoch, engine, s.textSize, k).slice(0, 6), 16) % 2000) / 100) * 1000) / 1000;
  c.fontPreferences = {
    default: pref(1),
    apple: os === "macos" || os === "ios" || os === "ipados" ? pref(2) + s.textSize * 12 : pref(1),
    serif: pref(1),
    sans: pref(3),
    mono: pref(4),
    min: Math.round((9 + s.textSize) * 1000) / 1000,
    system: pref(5),
  };

  // Audio (getAudioFingerprint): the DSP result depends on engine, OS and CPU architecture.
  if (safari17 || samsung26) c.audio = -4;
  else if (brave) c.audio = 124.04347527516074 + (farble() - 0.5) * 1e-6;
  else if (engine === "gecko") c.audio = os === "macos" ? 35.7383295930922 : 35.749968223273754;
  else if (engine === "webkit") c.audio = 35.10893253237009;
  else if (os === "android") c.audio = 124.08072766105033;
  else c.audio = model.arch === "arm" ? 124.04347657808103 : 124.04347527516074;

  const [w, h] = s.docked ? s.externalScreen : (model.screens[s.screen] ?? model.screens[0] ?? [0, 0]);
  if (!safari17) {
    c.screenFrame = undefined;
    if (!gecko143) {
      const bottom = mobile ? 0 : os === "macos" ? s.dockSize : s.taskbar;
      c.screenFrame = [mobile ? 0 : os === "macos" ? 30 : 0, 0, bottom, 0];
    }
    c.screenResolution = rfp ? [Math.max(w, h), Math.min(w, h) - 80] : [Math.max(w, h), Math.min(w, h)];
  }

  // Canvas (getCanvasFingerprint): skipped by Safari 17+ and Firefox 120+; Brave noises it per session.
  if (safari17 || gecko120) c.canvas = { winding: true, geometry: "skipped", text: "skipped" };
  else if (brave)
    c.canvas = {
      winding: true,
      geometry: `data:image/png;base64,${digest("bg", farble())}`,
      text: `data:image/png;base64,${digest("bt", farble())}`,
    };
  else {
    const gpuPart = os === "android" ? model.gpu.angle : model.arch;
    const epoch = engine === "blink" ? blinkEpoch(version) : osMajor;
    c.canvas = {
      winding: true,
      geometry: `data:image/png;base64,${digest("geometry", engine, os, gpuPart, epoch)}`,
      text: `data:image/png;base64,${digest("text", engine, fontEpoch, gpuPart, epoch)}`,
    };
  }

  c.osCpu =
    engine === "gecko"
      ? { windows: "Windows NT 10.0; Win64; x64", macos: "Intel Mac OS X 10.15", linux: "Linux x86_64" }[os as "windows"]
      : undefined;
  // Chromium 86+ reports navigator.language only; the others add navigator.languages.
  c.languages = engine === "blink" ? [[s.lang]] : rfp ? [["en-US"], ["en-US", "en"]] : [[s.lang], s.langs];
  c.colorDepth = s.docked ? 24 : engine === "blink" && os === "macos" && model.gamut === "p3" ? 30 : 24;
  c.deviceMemory =
    engine === "blink"
      ? brave
        ? [0.5, 1, 2, 4, 8][Math.floor(farble() * 5)]
        : Math.min(8, 2 ** Math.floor(Math.log2(s.ramGb)))
      : undefined;
  // WebKit clamps hardwareConcurrency (2 on iOS, 8 elsewhere); Firefox 143+ tiers it; Brave draws it at random.
  c.hardwareConcurrency =
    engine === "webkit"
      ? os === "ios" || os === "ipados"
        ? 2
        : Math.min(8, s.cores)
      : gecko143
        ? s.cores >= 8
          ? 8
          : 4
        : brave
          ? 2 + Math.floor(farble() * (s.cores - 1))
          : s.cores;
  if (rfp) c.hardwareConcurrency = 2;
  c.timezone = rfp ? "UTC" : s.tz;
  c.sessionStorage = true;
  c.localStorage = true;
  c.indexedDB = true;
  c.openDatabase = false;
  c.platform = { windows: "Win32", macos: "MacIntel", linux: "Linux x86_64", android: "Linux armv81", ios: "iPhone", ipados: "iPad" }[os];
  const pdf = ["PDF Viewer", "Chrome PDF Viewer", "Chromium PDF Viewer", "Microsoft Edge PDF Viewer", "WebKit built-in PDF"].map(
    (name) => ({
      name,
      description: "Portable Document Format",
      mimeTypes: [
        { type: "application/pdf", suffixes: "pdf" },
        { type: "text/pdf", suffixes: "pdf" },
      ],
    }),
  );
  c.plugins =
    mobile || !s.pdfViewer
      ? []
      : brave
        ? [...pdf, { name: digest("plugin", farble()), description: digest("d", farble()), mimeTypes: [] }]
        : pdf;
  c.touchSupport = { maxTouchPoints: model.touch, touchEvent: model.touch > 0, touchStart: model.touch > 0 };
  c.vendor = engine === "blink" ? "Google Inc." : engine === "webkit" ? "Apple Computer, Inc." : "";
  c.vendorFlavors =
    engine === "gecko"
      ? []
      : browser === "safari"
        ? os === "macos"
          ? ["safari"]
          : []
        : browser === "chrome-ios"
          ? ["__crWeb", "__gCrWeb"]
          : browser === "samsung"
            ? ["chrome", "samsungAr"]
            : ["chrome"];
  c.cookiesEnabled = true;
  c.colorGamut = s.docked ? "srgb" : model.gamut;
  c.invertedColors = engine === "webkit" ? false : undefined;
  c.forcedColors = engine === "webkit" ? undefined : false;
  c.monochrome = 0;
  c.contrast = 0;
  c.reducedMotion = s.reducedMotion;
  c.reducedTransparency = engine === "gecko" ? undefined : false;
  c.hdr = !s.docked && model.hdr;
  c.math =
    engine === "blink"
      ? { acos: 1.4473588658278522, tan: -1.4214488238747245, expm1: 1.718281828459045 }
      : engine === "gecko"
        ? { acos: 1.4473588658278522, tan: os === "windows" ? -1.4214488238747245 : -1.421448823874725, expm1: 1.7182818284590453 }
        : { acos: 1.4473588658278522, tan: -1.4214488238747245, expm1: osMajor === "26" ? 1.718281828459045 : 1.7182818284590453 };
  c.pdfViewerEnabled = !mobile && s.pdfViewer;
  c.architecture = model.arch === "x86" ? 255 : 127;
  c.applePay = browser === "safari" ? (s.applePay ? 1 : 0) : -1;
  c.privateClickMeasurement = browser === "safari" && os === "macos" ? "0" : undefined;
  c.audioBaseLatency = engine === "webkit" || os === "android" ? (model.audioLatency ?? -1) : -2;
  c.dateTimeLocale = engine === "webkit" ? s.locale : s.lang;

  // WebGL (getWebGlBasics, getWebGlExtensions): Gecko never asks for the unmasked renderer.
  const gpuName = engine === "gecko" ? model.gpu.firefox : engine === "webkit" ? "Apple GPU" : model.gpu.angle;
  c.webGlBasics =
    engine === "blink"
      ? {
          version: "WebGL 1.0 (OpenGL ES 2.0 Chromium)",
          vendor: "WebKit",
          vendorUnmasked: model.gpu.vendor,
          renderer: "WebKit WebGL",
          rendererUnmasked: gpuName,
          shadingLanguageVersion: "WebGL GLSL ES 1.0 (OpenGL ES GLSL ES 1.0 Chromium)",
        }
      : engine === "webkit"
        ? {
            version: "WebGL 1.0",
            vendor: "WebKit",
            vendorUnmasked: "Apple Inc.",
            renderer: "WebKit WebGL",
            rendererUnmasked: "Apple GPU",
            shadingLanguageVersion: "WebGL GLSL ES 1.0 (1.0)",
          }
        : {
            version: "WebGL 1.0",
            vendor: "Mozilla",
            vendorUnmasked: "",
            renderer: gpuName,
            rendererUnmasked: "",
            shadingLanguageVersion: "WebGL GLSL ES 1.0",
          };
  const glEpoch = engine === "blink" ? Math.floor(version / 2) : engine === "gecko" ? Math.floor(version / 3) : osMajor;
  c.webGlExtensions = {
    contextAttributes: ["alpha=true", "antialias=true", "depth=true", "desynchronized=false", "premultipliedAlpha=true", "stencil=false"],
    parameters: [`parameters-${digest(engine, gpuName, os, glEpoch)}`],
    shaderPrecisions: ["FRAGMENT_SHADER.LOW_FLOAT=127,127,23", `FRAGMENT_SHADER.HIGH_INT=${os === "ios" ? "31,30,0" : "31,30,0"}`],
    extensions: [`extensions-${digest(engine, gpuName, glEpoch)}`],
    extensionParameters: [`extension-parameters-${digest(engine, gpuName, glEpoch, "p")}`],
    unsupportedExtensions: [],
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (v !== undefined) out[k] = v;
  return out;
}
