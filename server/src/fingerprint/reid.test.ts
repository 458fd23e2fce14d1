// Re-identification per browser family (fingerprint/reid.ts, docs/identity.md): a drifted browser is found among its
// user's devices, two similar but distinct machines never are one, and identical units of a model are told apart by
// nothing, so among several the matcher chooses none. Components are the population model's (what FingerprintJS 5.2
// reports per engine and version: scenarios/population/browsers.ts).
import { describe, expect, it } from "vitest";
import { type BrowserState, components, userAgent } from "../../scenarios/population/browsers.js";
import { type BrowserId, type DeviceModel, FONTS, MODELS } from "../../scenarios/population/catalogue.js";
import { parseUserAgent } from "../pipeline/identity.js";
import { fingerprintComponents } from "./index.js";
import { type ReidFamily, reidentify, reidFamily, stableMismatch } from "./reid.js";

const model = (id: string) => MODELS.find((m) => m.id === id) as DeviceModel;

function state(modelId: string, browser: BrowserId, settings: Partial<BrowserState> = {}): BrowserState {
  const m = model(modelId);
  const os = m.os;
  return {
    model: m,
    browser,
    version: browser === "safari" ? 26 : browser === "firefox" ? 145 : 142,
    osBuild: os === "windows" ? "11.24H2" : os === "macos" ? "26.1" : os === "ios" ? "26.1" : os === "android" ? "16" : "ubuntu-24.04",
    cores: m.cores[0] as number,
    ramGb: m.ramGb[0] as number,
    screen: 0,
    docked: false,
    externalScreen: [2560, 1440],
    extraFonts: [],
    textSize: 0,
    dockSize: 70,
    taskbar: 40,
    tz: "Europe/Paris",
    lang: "fr-FR",
    langs: ["fr-FR", "fr", "en-US", "en"],
    locale: "fr-FR",
    reducedMotion: false,
    applePay: true,
    contentBlocker: [],
    pdfViewer: true,
    private: false,
    farbleSession: 1,
    ...settings,
  };
}

/** The components the server computes a fingerprint from (the request's user agent's family added). */
const seen = (s: BrowserState) =>
  fingerprintComponents(
    Object.fromEntries(Object.entries(components(s)).map(([k, v]) => [k, { value: v }])),
    parseUserAgent(userAgent(s)).info,
  );

const cand = (name: string, s: BrowserState) => ({ item: name, components: seen(s) });

/** One browser per family, with what drifts on it between two visits (an update, an OS update, a trip, a dock). */
const FAMILIES: Array<{ family: ReidFamily; browser: BrowserState; drifted: BrowserState }> = (() => {
  const chrome = state("dell-latitude-5420", "chrome", { extraFonts: [...FONTS.office], taskbar: 50, screen: 1 });
  const firefox = state("hp-elitebook-840-g8", "firefox", { extraFonts: [...FONTS.office] });
  const safari = state("macbook-air-m2", "safari", { osBuild: "26.0", version: 26 });
  const iphone = state("iphone-15", "safari", { osBuild: "26.0", version: 26 });
  const android = state("pixel-8", "chrome");
  const brave = state("dell-latitude-5420", "brave", { farbleSession: 11 });
  const rfp = state("hp-elitebook-840-g8", "firefox", { rfp: true });
  return [
    { family: "desktop-chromium", browser: chrome, drifted: { ...chrome, version: 145, extraFonts: [...FONTS.office, ...FONTS.adobe] } },
    { family: "desktop-firefox", browser: firefox, drifted: { ...firefox, version: 146, extraFonts: [...FONTS.office, ...FONTS.adobe] } },
    { family: "safari-macos", browser: safari, drifted: { ...safari, osBuild: "26.1", version: 26, docked: true } },
    { family: "iphone", browser: iphone, drifted: { ...iphone, osBuild: "26.1", tz: "Asia/Tokyo" } },
    { family: "android", browser: android, drifted: { ...android, version: 145, tz: "America/New_York" } },
    { family: "brave", browser: brave, drifted: { ...brave, version: 145, farbleSession: 12 } },
    { family: "privacy", browser: rfp, drifted: { ...rfp, version: 146 } },
  ];
})();

describe("re-identification per browser family", () => {
  it("names each family from the components alone", () => {
    for (const f of FAMILIES) expect(reidFamily(seen(f.browser)), f.family).toBe(f.family);
  });

  for (const f of FAMILIES) {
    it(`${f.family}: a drifted browser is found among its user's devices (a phone and a computer of other families)`, () => {
      const others = FAMILIES.filter((o) => o.family !== f.family).slice(0, 2);
      const r = reidentify(seen(f.drifted), [...others.map((o) => cand(o.family, o.browser)), cand("mine", f.browser)]);
      expect(r.match).toBe("mine");
    });

    it(`${f.family}: a unit of the same model differing only in its languages is never it`, () => {
      const other = { ...f.browser, lang: "de-DE", langs: ["de-DE", "de"] };
      // Firefox with resistFingerprinting reports en-US whatever the settings: nothing tells two such units apart.
      if (f.family === "privacy") return;
      expect(stableMismatch(seen(other), seen(f.browser))).toBe("languages");
      expect(reidentify(seen(other), [cand("mine", f.browser)]).match).toBeUndefined();
    });
  }

  it("a similar machine of another user's configuration (another GPU, cores or screen) is never the drifted browser", () => {
    const mine = state("dell-latitude-5420", "chrome", { extraFonts: [...FONTS.office] });
    const otherGpu = state("lenovo-thinkpad-t14-amd", "chrome", { extraFonts: [...FONTS.office], cores: 8, ramGb: 8 });
    // Scaled otherwise, with a larger text size: another unit (scaled otherwise only, it is what a dock looks like: below).
    const otherScreen = { ...mine, screen: 2, textSize: 1 };
    expect(stableMismatch(seen(otherGpu), seen(mine))).toBe("webGlBasics");
    expect(stableMismatch(seen(otherScreen), seen(mine))).toBe("screenResolution");
    expect(reidentify(seen(otherGpu), [cand("mine", mine)])).toEqual({ reason: "stable-differs" });
    expect(reidentify(seen(otherScreen), [cand("mine", mine)])).toEqual({ reason: "stable-differs" });
    // Docked, the laptop reports the monitor's size and nothing else changed: the same laptop. Docked after an update
    // too, nothing says it is not another unit of the model set up alike but scaled otherwise: none.
    expect(reidentify(seen({ ...mine, docked: true }), [cand("mine", mine)]).match).toBe("mine");
    expect(reidentify(seen({ ...mine, docked: true, version: 145 }), [cand("mine", mine)])).toEqual({ reason: "stable-differs" });
  });

  it("two identical units of a model are both candidates: neither is chosen", () => {
    for (const f of FAMILIES) {
      const r = reidentify(seen(f.drifted), [cand("first", f.browser), cand("second", f.browser)]);
      expect(r, f.family).toEqual({ reason: "ambiguous" });
    }
  });

  it("one identical phone among the user's devices is chosen: the service asks it only among the named user's own", () => {
    const iphone = FAMILIES.find((f) => f.family === "iphone")?.browser as BrowserState;
    expect(reidentify(seen(iphone), [cand("phone", iphone)]).match).toBe("phone");
    // Another model of iPhone reports the same components too (Safari 17+ hides the screen): the family, not the model.
    expect(reidentify(seen(state("iphone-13", "safari", { osBuild: "26.0" })), [cand("phone", iphone)]).match).toBe("phone");
  });

  it("another unit of the model whose owner installed other programs, or set another taskbar, is never it", () => {
    const mine = state("dell-latitude-5420", "chrome", { extraFonts: [...FONTS.office] });
    const otherFonts = { ...mine, extraFonts: [...FONTS.adobe] };
    const otherTaskbar = { ...mine, taskbar: 30, extraFonts: [...FONTS.office, ...FONTS.cjk] };
    expect(stableMismatch(seen(otherFonts), seen(mine))).toBe("fonts");
    expect(stableMismatch(seen(otherTaskbar), seen(mine))).toBe("screenFrame");
    expect(reidentify(seen(otherFonts), [cand("mine", mine)]).match).toBeUndefined();
    expect(reidentify(seen(otherTaskbar), [cand("mine", mine)]).match).toBeUndefined();
    // A font installed since, on the same machine: it.
    expect(reidentify(seen({ ...mine, extraFonts: [...FONTS.office, ...FONTS.cjk] }), [cand("mine", mine)]).match).toBe("mine");
  });

  it("another browser on the same computer is never it", () => {
    const chrome = state("macbook-air-m2", "chrome");
    const safari = state("macbook-air-m2", "safari");
    expect(reidentify(seen(chrome), [cand("safari", safari)]).match).toBeUndefined();
  });
});
