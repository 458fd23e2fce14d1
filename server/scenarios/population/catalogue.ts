// The hardware and software a population is drawn from: device models as sold (cores, memory, GPU as each engine
// names it, screen sizes at the scalings an owner can choose, colour gamut, touch), the browsers people run on each
// OS, the OS builds in use, and the fonts each OS ships or programs install (from FingerprintJS's own font list).
// `heldOut` models are never used to derive weights or tune anything: the suite reports them apart.

export type Os = "windows" | "macos" | "linux" | "android" | "ios" | "ipados";
export type BrowserId = "chrome" | "edge" | "firefox" | "safari" | "brave" | "samsung" | "chrome-ios";

export interface DeviceModel {
  id: string;
  kind: "computer" | "mobile" | "tablet";
  os: Os;
  arch: "x86" | "arm";
  /** Logical cores of the variants sold. */
  cores: number[];
  ramGb: number[];
  /** The GPU as Chromium's ANGLE names it (WEBGL_debug_renderer_info), and as Firefox's sanitised renderer does. */
  gpu: { vendor: string; angle: string; firefox: string };
  /** CSS-pixel screen sizes: the default scaling first, then the ones an owner may choose instead. */
  screens: Array<[number, number]>;
  gamut: "srgb" | "p3";
  hdr: boolean;
  touch: number;
  browsers: ReadonlyArray<readonly [BrowserId, number]>;
  /** Share of owners who use an external monitor at some sessions (laptops) or always (desktops: 0). */
  external: number;
  /** userAgentData.model (Android only). */
  androidModel?: string;
  /** AudioContext.baseLatency, read by FingerprintJS on WebKit and Android only. */
  audioLatency?: number;
  heldOut?: boolean;
}

const WIN_BROWSERS = [
  ["chrome", 0.55],
  ["edge", 0.25],
  ["firefox", 0.12],
  ["brave", 0.08],
] as const;
const MAC_BROWSERS = [
  ["safari", 0.5],
  ["chrome", 0.4],
  ["firefox", 0.1],
] as const;
const IOS_BROWSERS = [
  ["safari", 0.85],
  ["chrome-ios", 0.15],
] as const;
const SAMSUNG_BROWSERS = [
  ["chrome", 0.6],
  ["samsung", 0.4],
] as const;

const intel = (name: string, id: string) => ({
  vendor: "Google Inc. (Intel)",
  angle: `ANGLE (Intel, ${name} (0x0000${id}) Direct3D11 vs_5_0 ps_5_0, D3D11)`,
  firefox: `ANGLE (Intel, ${name} Direct3D11 vs_5_0 ps_5_0)`,
});
const amd = (name: string, id: string) => ({
  vendor: "Google Inc. (AMD)",
  angle: `ANGLE (AMD, ${name} (0x0000${id}) Direct3D11 vs_5_0 ps_5_0, D3D11)`,
  firefox: `ANGLE (AMD, ${name} Direct3D11 vs_5_0 ps_5_0)`,
});
const nvidia = (name: string, id: string) => ({
  vendor: "Google Inc. (NVIDIA)",
  angle: `ANGLE (NVIDIA, NVIDIA ${name} (0x0000${id}) Direct3D11 vs_5_0 ps_5_0, D3D11)`,
  firefox: `ANGLE (NVIDIA, NVIDIA ${name} Direct3D11 vs_5_0 ps_5_0)`,
});
const apple = (chip: string) => ({
  vendor: "Google Inc. (Apple)",
  angle: `ANGLE (Apple, ANGLE Metal Renderer: ${chip}, Unspecified Version)`,
  firefox: chip,
});
const mobileGpu = (name: string, vendor: string) => ({ vendor, angle: name, firefox: name });

/** What most models share, written once: an sRGB display without HDR or touch, no external monitor. */
type ModelSpec = Omit<DeviceModel, "gamut" | "hdr" | "touch" | "external"> &
  Partial<Pick<DeviceModel, "gamut" | "hdr" | "touch" | "external">>;
const withDefaults = (m: ModelSpec): DeviceModel => ({ gamut: "srgb", hdr: false, touch: 0, external: 0, ...m });

export const MODELS: DeviceModel[] = (
  [
    // ---- Windows --------------------------------------------------------------------------------------------------------
    {
      id: "dell-latitude-5420",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [8],
      ramGb: [8, 16],
      gpu: intel("Intel(R) Iris(R) Xe Graphics", "9A49"),
      screens: [
        [1536, 864],
        [1920, 1080],
        [1280, 720],
      ],
      browsers: WIN_BROWSERS,
      external: 0.5,
    },
    {
      id: "hp-elitebook-840-g8",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [8],
      ramGb: [16, 32],
      gpu: intel("Intel(R) Iris(R) Xe Graphics", "9A49"),
      screens: [
        [1536, 864],
        [1920, 1080],
      ],
      browsers: WIN_BROWSERS,
      external: 0.5,
    },
    {
      id: "lenovo-thinkpad-t14-amd",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [12, 16],
      ramGb: [16],
      gpu: amd("AMD Radeon(TM) Graphics", "1638"),
      screens: [
        [1536, 864],
        [1920, 1080],
      ],
      browsers: WIN_BROWSERS,
      external: 0.4,
    },
    {
      id: "hp-pavilion-15",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [8],
      ramGb: [8],
      gpu: intel("Intel(R) UHD Graphics", "9A78"),
      screens: [
        [1536, 864],
        [1920, 1080],
      ],
      browsers: WIN_BROWSERS,
      external: 0.15,
    },
    {
      id: "acer-aspire-5",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [8],
      ramGb: [8],
      gpu: intel("Intel(R) UHD Graphics", "9A78"),
      screens: [
        [1536, 864],
        [1920, 1080],
      ],
      browsers: WIN_BROWSERS,
      external: 0.15,
    },
    {
      id: "gaming-desktop-rtx3060",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [12, 16],
      ramGb: [16, 32],
      gpu: nvidia("GeForce RTX 3060", "2504"),
      screens: [
        [1920, 1080],
        [2560, 1440],
      ],
      browsers: WIN_BROWSERS,
    },
    {
      id: "dell-optiplex-7070",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [6, 8, 12],
      ramGb: [8, 16],
      gpu: intel("Intel(R) UHD Graphics 630", "3E92"),
      screens: [
        [1920, 1080],
        [1680, 1050],
      ],
      browsers: WIN_BROWSERS,
    },
    // ---- macOS ----------------------------------------------------------------------------------------------------------
    {
      id: "macbook-air-m1",
      kind: "computer",
      os: "macos",
      arch: "arm",
      cores: [8],
      ramGb: [8, 16],
      gpu: apple("Apple M1"),
      screens: [
        [1440, 900],
        [1280, 800],
        [1680, 1050],
      ],
      gamut: "p3",
      browsers: MAC_BROWSERS,
      external: 0.3,
    },
    {
      id: "macbook-air-m2",
      kind: "computer",
      os: "macos",
      arch: "arm",
      cores: [8],
      ramGb: [8, 16],
      gpu: apple("Apple M2"),
      screens: [
        [1470, 956],
        [1280, 832],
        [1710, 1112],
      ],
      gamut: "p3",
      browsers: MAC_BROWSERS,
      external: 0.3,
    },
    {
      id: "macbook-pro-14-m3",
      kind: "computer",
      os: "macos",
      arch: "arm",
      cores: [11, 12],
      ramGb: [18, 36],
      gpu: apple("Apple M3 Pro"),
      screens: [
        [1512, 982],
        [1352, 878],
        [1800, 1169],
      ],
      gamut: "p3",
      hdr: true,
      browsers: MAC_BROWSERS,
      external: 0.45,
    },
    {
      id: "imac-24-m1",
      kind: "computer",
      os: "macos",
      arch: "arm",
      cores: [8],
      ramGb: [8, 16],
      gpu: apple("Apple M1"),
      screens: [
        [2240, 1260],
        [2048, 1152],
      ],
      gamut: "p3",
      browsers: MAC_BROWSERS,
    },
    // ---- Linux ----------------------------------------------------------------------------------------------------------
    {
      id: "thinkpad-x1-ubuntu",
      kind: "computer",
      os: "linux",
      arch: "x86",
      cores: [8],
      ramGb: [16],
      gpu: {
        vendor: "Google Inc. (Intel)",
        angle: "ANGLE (Intel, Mesa Intel(R) Xe Graphics (TGL GT2), OpenGL 4.6)",
        firefox: "Mesa Intel(R) Xe Graphics (TGL GT2)",
      },
      screens: [
        [1920, 1080],
        [1920, 1200],
      ],
      browsers: [
        ["firefox", 0.6],
        ["chrome", 0.4],
      ],
      external: 0.4,
    },
    // ---- phones ---------------------------------------------------------------------------------------------------------
    {
      id: "iphone-13",
      kind: "mobile",
      os: "ios",
      arch: "arm",
      cores: [6],
      ramGb: [4],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[844, 390]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
    },
    {
      id: "iphone-15",
      kind: "mobile",
      os: "ios",
      arch: "arm",
      cores: [6],
      ramGb: [6],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[852, 393]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
    },
    {
      id: "iphone-15-pro-max",
      kind: "mobile",
      os: "ios",
      arch: "arm",
      cores: [6],
      ramGb: [8],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[932, 430]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
    },
    {
      id: "iphone-se-3",
      kind: "mobile",
      os: "ios",
      arch: "arm",
      cores: [6],
      ramGb: [4],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[667, 375]],
      gamut: "p3",
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
    },
    {
      id: "pixel-8",
      kind: "mobile",
      os: "android",
      arch: "arm",
      cores: [9],
      ramGb: [8],
      gpu: mobileGpu("Mali-G715", "ARM"),
      screens: [[915, 412]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: [["chrome", 1]],
      androidModel: "Pixel 8",
      audioLatency: 0.01,
    },
    {
      id: "galaxy-s23",
      kind: "mobile",
      os: "android",
      arch: "arm",
      cores: [8],
      ramGb: [8],
      gpu: mobileGpu("Adreno (TM) 740", "Qualcomm"),
      screens: [[780, 360]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: SAMSUNG_BROWSERS,
      androidModel: "SM-S911B",
      audioLatency: 0.012,
    },
    {
      id: "galaxy-a54",
      kind: "mobile",
      os: "android",
      arch: "arm",
      cores: [8],
      ramGb: [6, 8],
      gpu: mobileGpu("Mali-G68", "ARM"),
      screens: [[854, 384]],
      touch: 5,
      browsers: SAMSUNG_BROWSERS,
      androidModel: "SM-A546B",
      audioLatency: 0.016,
    },
    // ---- tablets --------------------------------------------------------------------------------------------------------
    {
      id: "ipad-air-5",
      kind: "tablet",
      os: "ipados",
      arch: "arm",
      cores: [8],
      ramGb: [8],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[1180, 820]],
      gamut: "p3",
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
    },
    {
      id: "galaxy-tab-s8",
      kind: "tablet",
      os: "android",
      arch: "arm",
      cores: [8],
      ramGb: [8],
      gpu: mobileGpu("Adreno (TM) 730", "Qualcomm"),
      screens: [[1280, 800]],
      touch: 5,
      browsers: SAMSUNG_BROWSERS,
      androidModel: "SM-X700",
      audioLatency: 0.012,
    },
    // ---- held out: never used to derive weights or to tune ------------------------------------------------------------
    {
      id: "surface-laptop-5",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [12],
      ramGb: [8, 16],
      gpu: intel("Intel(R) Iris(R) Xe Graphics", "A7A0"),
      screens: [
        [1504, 1003],
        [1128, 752],
      ],
      touch: 10,
      browsers: WIN_BROWSERS,
      external: 0.35,
      heldOut: true,
    },
    {
      id: "lenovo-ideapad-5-ryzen",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [12, 16],
      ramGb: [8, 16],
      gpu: amd("AMD Radeon(TM) Graphics", "1681"),
      screens: [
        [1536, 864],
        [1920, 1080],
      ],
      browsers: WIN_BROWSERS,
      external: 0.2,
      heldOut: true,
    },
    {
      id: "office-desktop-gtx1650",
      kind: "computer",
      os: "windows",
      arch: "x86",
      cores: [8, 12],
      ramGb: [16],
      gpu: nvidia("GeForce GTX 1650", "1F82"),
      screens: [
        [1920, 1080],
        [2560, 1440],
      ],
      browsers: WIN_BROWSERS,
      heldOut: true,
    },
    {
      id: "macbook-air-m3-15",
      kind: "computer",
      os: "macos",
      arch: "arm",
      cores: [8],
      ramGb: [16, 24],
      gpu: apple("Apple M3"),
      screens: [
        [1710, 1112],
        [1470, 956],
      ],
      gamut: "p3",
      browsers: MAC_BROWSERS,
      external: 0.3,
      heldOut: true,
    },
    {
      id: "iphone-14",
      kind: "mobile",
      os: "ios",
      arch: "arm",
      cores: [6],
      ramGb: [6],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[844, 390]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
      heldOut: true,
    },
    {
      id: "galaxy-s24",
      kind: "mobile",
      os: "android",
      arch: "arm",
      cores: [8],
      ramGb: [8],
      gpu: mobileGpu("Adreno (TM) 750", "Qualcomm"),
      screens: [[780, 360]],
      gamut: "p3",
      hdr: true,
      touch: 5,
      browsers: SAMSUNG_BROWSERS,
      androidModel: "SM-S921B",
      audioLatency: 0.012,
      heldOut: true,
    },
    {
      id: "pixel-6a",
      kind: "mobile",
      os: "android",
      arch: "arm",
      cores: [8],
      ramGb: [6],
      gpu: mobileGpu("Mali-G78", "ARM"),
      screens: [[892, 412]],
      touch: 5,
      browsers: [["chrome", 1]],
      androidModel: "Pixel 6a",
      audioLatency: 0.01,
      heldOut: true,
    },
    {
      id: "ipad-10",
      kind: "tablet",
      os: "ipados",
      arch: "arm",
      cores: [6],
      ramGb: [4],
      gpu: mobileGpu("Apple GPU", "Apple Inc."),
      screens: [[1180, 820]],
      touch: 5,
      browsers: IOS_BROWSERS,
      audioLatency: 0.005333333333333333,
      heldOut: true,
    },
  ] as ModelSpec[]
).map(withDefaults);

/** OS builds in use, with their share, for each OS (late 2026). */
export const OS_BUILDS: Record<Os, Array<readonly [string, number]>> = {
  windows: [
    ["11.24H2", 0.55],
    ["11.23H2", 0.15],
    ["10.22H2", 0.3],
  ],
  macos: [
    ["26.1", 0.45],
    ["26.0", 0.2],
    ["15.7", 0.25],
    ["14.8", 0.1],
  ],
  linux: [["ubuntu-24.04", 1]],
  android: [
    ["16", 0.4],
    ["15", 0.45],
    ["14", 0.15],
  ],
  ios: [
    ["26.1", 0.5],
    ["26.0", 0.2],
    ["18.7", 0.3],
  ],
  ipados: [
    ["26.1", 0.5],
    ["26.0", 0.2],
    ["18.7", 0.3],
  ],
};

/** The next build an OS update brings (the window's minor updates). */
export const OS_UPDATE: Record<string, string> = {
  "11.23H2": "11.24H2",
  "26.0": "26.1",
  "26.1": "26.2",
  "15.7": "15.7.1",
  "18.7": "18.7.1",
  "16": "16",
  "15": "15",
};

// Fonts of FingerprintJS's list (fp.esm.js `fontList`) each OS ships, and those programs add.
export const FONTS = {
  windows: ["Calibri", "Franklin Gothic", "Leelawadee", "Marlett", "Microsoft Uighur", "Segoe UI Light", "Small Fonts", "Vrinda"],
  macos: ["Arial Unicode MS", "Gill Sans", "Helvetica Neue", "Menlo"],
  ios: ["Gill Sans", "Helvetica Neue", "Menlo"],
  android: ["sans-serif-thin"],
  linux: ["Bitstream Vera Sans Mono"],
  office: [
    "Agency FB",
    "Arial Unicode MS",
    "Century",
    "Century Gothic",
    "Haettenschweiler",
    "Lucida Bright",
    "Lucida Sans",
    "MS Outlook",
    "MS Reference Specialty",
    "MT Extra",
    "Monotype Corsiva",
    "Pristina",
  ],
  adobe: ["ARNO PRO", "MYRIAD PRO", "Minion Pro", "TRAJAN PRO", "ZWAdobeF"],
  cjk: ["Batang", "MS Mincho", "MS UI Gothic", "Meiryo UI", "PMingLiU", "SimHei"],
  corel: ["AvantGarde Bk BT", "BankGothic Md BT", "Futura Bk BT", "Futura Md BT", "Humanst521 BT", "Staccato222 BT"],
} as const;

/** Where people live: time zone, language (navigator.language), the languages list, and the formatting locale. */
export const LOCALES: Array<readonly [{ tz: string; lang: string; langs: string[]; locale: string; country: string }, number]> = [
  [{ country: "US", tz: "America/New_York", lang: "en-US", langs: ["en-US", "en"], locale: "en-US" }, 0.14],
  [{ country: "US", tz: "America/Chicago", lang: "en-US", langs: ["en-US", "en"], locale: "en-US" }, 0.08],
  [{ country: "US", tz: "America/Los_Angeles", lang: "en-US", langs: ["en-US", "en"], locale: "en-US" }, 0.1],
  [{ country: "GB", tz: "Europe/London", lang: "en-GB", langs: ["en-GB", "en"], locale: "en-GB" }, 0.1],
  [{ country: "GB", tz: "Europe/London", lang: "en-US", langs: ["en-US", "en"], locale: "en-GB" }, 0.03],
  [{ country: "FR", tz: "Europe/Paris", lang: "fr-FR", langs: ["fr-FR", "fr", "en-US", "en"], locale: "fr-FR" }, 0.1],
  [{ country: "FR", tz: "Europe/Paris", lang: "fr", langs: ["fr"], locale: "fr-FR" }, 0.03],
  [{ country: "DE", tz: "Europe/Berlin", lang: "de-DE", langs: ["de-DE", "de", "en-US", "en"], locale: "de-DE" }, 0.1],
  [{ country: "ES", tz: "Europe/Madrid", lang: "es-ES", langs: ["es-ES", "es"], locale: "es-ES" }, 0.06],
  [{ country: "BR", tz: "America/Sao_Paulo", lang: "pt-BR", langs: ["pt-BR", "pt", "en"], locale: "pt-BR" }, 0.07],
  [{ country: "JP", tz: "Asia/Tokyo", lang: "ja", langs: ["ja", "en-US"], locale: "ja-JP" }, 0.06],
  [{ country: "IN", tz: "Asia/Kolkata", lang: "en-IN", langs: ["en-IN", "en", "hi"], locale: "en-IN" }, 0.07],
  [{ country: "AU", tz: "Australia/Sydney", lang: "en-AU", langs: ["en-AU", "en"], locale: "en-AU" }, 0.06],
];
