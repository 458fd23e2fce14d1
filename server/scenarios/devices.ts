// Synthetic browsers for the scenario suite and the re-identification measurement: FingerprintJS-like components
// drawn from realistic pools (so unrelated devices share platforms, GPUs, screens and fonts), and the minor
// updates an honest browser goes through (a version bump that changes canvas details, a new font, a new window size).
export type Rng = () => number;

export function rng(seed: number): Rng {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

const PLATFORMS = [
  {
    platform: "Win32",
    vendor: "Google Inc.",
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Safari/537.36",
    type: "computer",
  },
  {
    platform: "MacIntel",
    vendor: "Google Inc.",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Safari/537.36",
    type: "computer",
  },
  {
    platform: "MacIntel",
    vendor: "Apple Computer, Inc.",
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{v}.0 Safari/605.1.15",
    type: "computer",
  },
  { platform: "Linux x86_64", vendor: "", ua: "Mozilla/5.0 (X11; Linux x86_64; rv:{v}.0) Gecko/20100101 Firefox/{v}.0", type: "computer" },
  {
    platform: "iPhone",
    vendor: "Apple Computer, Inc.",
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{v}.0 Mobile/15E148 Safari/604.1",
    type: "mobile",
  },
  {
    platform: "Linux armv81",
    vendor: "Google Inc.",
    ua: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Mobile Safari/537.36",
    type: "mobile",
  },
  {
    platform: "iPad",
    vendor: "Apple Computer, Inc.",
    ua: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{v}.0 Mobile/15E148 Safari/604.1",
    type: "tablet",
  },
] as const;
const GPUS = [
  "ANGLE (Intel, Intel(R) UHD Graphics 620)",
  "ANGLE (NVIDIA, GeForce RTX 3060)",
  "ANGLE (AMD, Radeon RX 6600)",
  "Apple M1",
  "Apple M2",
  "Apple GPU",
  "Adreno (TM) 740",
  "Mali-G78",
  "ANGLE (Intel, Iris Xe)",
  "ANGLE (NVIDIA, GeForce GTX 1650)",
  "Mesa Intel(R) UHD 630",
];
const SCREENS = [
  [1920, 1080],
  [1366, 768],
  [1536, 864],
  [1440, 900],
  [2560, 1440],
  [1280, 800],
  [390, 844],
  [412, 915],
  [820, 1180],
];
const CORES = [2, 4, 6, 8, 8, 12, 16];
const MEMORY = [2, 4, 8, 8];
const LANGS = [["en-US", "en"], ["en-GB", "en"], ["de-DE", "de"], ["fr-FR", "fr"], ["ja-JP"], ["pt-BR", "pt"]];
const BASE_FONTS = ["Arial", "Courier New", "Georgia", "Times New Roman", "Verdana"];
const EXTRA_FONTS = Array.from({ length: 60 }, (_, i) => `Font${i}`);

export interface SyntheticDevice {
  seed: number;
  type: "computer" | "tablet" | "mobile";
  userAgent: string;
  version: number;
  components: Record<string, unknown>;
}

export function makeDevice(seed: number, timezone = "Europe/Paris"): SyntheticDevice {
  const r = rng(seed * 2654435761);
  const p = pick(r, PLATFORMS);
  const gpu = pick(r, GPUS);
  const fonts = [...BASE_FONTS, ...EXTRA_FONTS.filter(() => r() < 0.12)];
  const version = 120 + Math.floor(r() * 10);
  // Canvas and audio depend on the GPU, the OS and the font stack, plus sub-pixel rendering details of the
  // machine (a hash of the seed stands for them); identical setups can still render the same.
  const machine = Math.floor(r() * 1e9).toString(36);
  const components: Record<string, unknown> = {
    platform: p.platform,
    vendor: p.vendor,
    hardwareConcurrency: pick(r, CORES),
    deviceMemory: pick(r, MEMORY),
    colorDepth: 24,
    screenResolution: pick(r, SCREENS),
    languages: [pick(r, LANGS)],
    timezone,
    fonts,
    canvas: { winding: true, geometry: `g-${gpu}-${machine}`, text: `t-${p.platform}-${fonts.length}-${machine}` },
    audio: 124.04 + Math.floor(r() * 1000) / 1e6,
    webGlBasics: { vendor: p.vendor || "Mozilla", renderer: gpu, version: "WebGL 1.0" },
    math: { acos: 1.4473588658278522, tan: -1.4214488238747245 },
    touchSupport: { maxTouchPoints: p.type === "computer" ? 0 : 5, touchEvent: p.type !== "computer" },
    cookiesEnabled: true,
  };
  return { seed, type: p.type, userAgent: p.ua.replaceAll("{v}", String(version)), version, components };
}

/** A minor update: the browser's major version moves on (canvas text rendering changes), a font is added, the window is resized. */
export function updateDevice(d: SyntheticDevice, step = 1): SyntheticDevice {
  const r = rng(d.seed * 7919 + step);
  const c = structuredClone(d.components);
  const canvas = c.canvas as Record<string, unknown>;
  canvas.text = `${String(canvas.text)}-v${d.version + step}`;
  c.fonts = [...(c.fonts as string[]), `Update${step}-${Math.floor(r() * 5)}`];
  c.screenResolution = pick(r, SCREENS);
  const version = d.version + step;
  return { ...d, version, userAgent: d.userAgent.replaceAll(String(d.version), String(version)), components: c };
}

export const asWire = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, { value: v }]));
