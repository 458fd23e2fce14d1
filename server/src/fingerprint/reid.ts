// Re-identification of a browser by its components, per browser family (docs/identity.md, "Re-identification without
// the token"). What FingerprintJS 5.2 reports differs by engine: Chromium reports the GPU (unmasked renderer), cores,
// memory, one language, the screen, canvas and audio; Gecko 120+ skips the canvas, reports the GPU in the masked
// renderer, tiers cores from 143 and with resistFingerprinting reports UTC, 2 cores, en-US and the window as screen;
// WebKit 17+ skips canvas, audio and the screen and clamps cores; Brave farbles canvas, audio, cores, memory and
// plugins (measuredComponents leaves those out). Some components only change with the machine (its platform, GPU,
// architecture, cores, memory, touch) or with its owner's settings (languages, the built-in screen's size): a
// difference there is another machine, whatever else agrees (a screen, unless only the display changed: a dock). The rest drift: a browser update changes canvas, WebGL
// parameters and client hints, an OS update font metrics, a trip the time zone, a font install the font list.
// A match is for counting and linking only: it never makes a login familiar nor moves a token (docs/security.md).
import { measuredComponents, similarity, stableStringify, UA_FAMILY } from "./index.js";

/** The families re-identification is reported and reasoned about per (scenarios/identity.ts reports the same). */
export type ReidFamily = "desktop-chromium" | "desktop-firefox" | "safari-macos" | "iphone" | "android" | "brave" | "privacy" | "other";

const brandsOf = (m: Record<string, unknown>): unknown[] => {
  const uad = m.userAgentData;
  const brands = uad && typeof uad === "object" ? (uad as Record<string, unknown>).brands : undefined;
  return Array.isArray(brands) ? brands : [];
};

/** The family of a component set, from what the components say (vendor, platform, brands, Gecko's RFP markers). */
export function reidFamily(n: Record<string, unknown>): ReidFamily {
  const platform = typeof n.platform === "string" ? n.platform : "";
  const vendor = n.vendor;
  if (platform === "iPhone" || platform === "iPad" || platform === "iPod") return "iphone";
  if (/^Linux (arm|aarch)/i.test(platform) || platform === "Android") return "android";
  if (vendor === "Google Inc.") return brandsOf(n).includes("Brave") ? "brave" : "desktop-chromium";
  if (vendor === "Apple Computer, Inc.") return platform.startsWith("Mac") ? "safari-macos" : "other";
  if (vendor === "") {
    // privacy.resistFingerprinting: UTC, two cores, en-US whatever the machine.
    if (n.timezone === "UTC" && n.hardwareConcurrency === 2) return "privacy";
    return "desktop-firefox";
  }
  return "other";
}

/** The GPU as the browser reports it: Chromium's unmasked vendor and renderer, Gecko's masked renderer, WebKit's "Apple GPU". */
function gpu(m: Record<string, unknown>): string | undefined {
  const gl = m.webGlBasics;
  if (!gl || typeof gl !== "object") return undefined;
  const g = gl as Record<string, unknown>;
  return stableStringify([g.vendorUnmasked ?? null, g.rendererUnmasked || g.renderer || null]);
}

/**
 * Components that only change with the machine or with a setting its owner rarely touches. Each is compared when both
 * sides measured it (Brave's farbled cores and memory are not measured). The screen is compared apart (stableMismatch).
 */
const STABLE = [
  UA_FAMILY,
  "platform",
  "vendor",
  "architecture",
  "touchSupport",
  "hardwareConcurrency",
  "deviceMemory",
  "osCpu",
  "languages",
] as const;

/**
 * The first stable component the two sets disagree on, or undefined: another machine when one is named. `a` is the
 * later set (the request), `b` the earlier (the device's record).
 */
export function stableMismatch(a: Record<string, unknown>, b: Record<string, unknown>): string | undefined {
  const ma = measuredComponents(a);
  const mb = measuredComponents(b);
  for (const key of STABLE) {
    if (!(key in ma) || !(key in mb)) {
      if (key in ma !== key in mb && key !== "deviceMemory") return key;
      continue;
    }
    if (stableStringify(ma[key]) !== stableStringify(mb[key])) return key;
  }
  const ga = gpu(ma);
  const gb = gpu(mb);
  if (ga !== undefined && gb !== undefined && ga !== gb) return "webGlBasics";
  // Fonts are installed, rarely removed: the earlier list must be within the later one. Two units of a model whose
  // owners installed different programs fail this; one that installed a font since passes.
  if (Array.isArray(ma.fonts) && Array.isArray(mb.fonts)) {
    const now = new Set(ma.fonts);
    if (!mb.fonts.every((f) => now.has(f))) return "fonts";
  }
  // The screen and its frame tell two units of a model apart (their owners' display scaling, taskbar or dock), and a
  // monitor changes them: another screen is the same machine only when nothing but the display changed.
  for (const key of ["screenResolution", "screenFrame"] as const) {
    if (key in ma && key in mb && stableStringify(ma[key]) !== stableStringify(mb[key]) && !onlyDisplayDiffers(ma, mb)) return key;
  }
  return undefined;
}

/** What a monitor changes: the screen's size and frame, colour depth, gamut and HDR. */
const DISPLAY = new Set(["screenResolution", "screenFrame", "colorDepth", "colorGamut", "hdr"]);

function onlyDisplayDiffers(ma: Record<string, unknown>, mb: Record<string, unknown>): boolean {
  for (const key of new Set([...Object.keys(ma), ...Object.keys(mb)])) {
    if (DISPLAY.has(key)) continue;
    if (stableStringify(ma[key]) !== stableStringify(mb[key])) return false;
  }
  return true;
}

/**
 * A token-kept browser is the same after a drift when at least this much of its weighted information agrees and no
 * stable component changed: a token on the same machine, drifted further than TOKEN_MATCH allows (an update, a trip
 * and a dock at once), is still its browser. A stolen token on another machine differs in a stable component.
 */
export const TOKEN_STABLE_MATCH = 0.25;

/**
 * Without the token: the least weighted similarity for a candidate with no stable difference, and how much closer the
 * best must be than the next candidate; two candidates about as close are two machines we cannot tell apart, and
 * neither is chosen.
 */
export const REID_MATCH = 0.6;
export const REID_MARGIN = 0.15;

export interface ReidCandidate<T> {
  item: T;
  components: Record<string, unknown>;
}

export type ReidResult<T> =
  | { match: T; similarity: number }
  | { match?: undefined; reason: "none" | "stable-differs" | "too-far" | "ambiguous" };

/**
 * The one candidate these components are a drift of: same family, no stable difference, weighted similarity at least
 * REID_MATCH, and clearly closer than any other candidate that passes. Candidates are the named user's own devices
 * only (pipeline/identity.ts): components tell a device from the user's other devices, not from a stranger's unit of
 * the same model.
 */
export function reidentify<T>(components: Record<string, unknown>, candidates: Array<ReidCandidate<T>>): ReidResult<T> {
  if (candidates.length === 0) return { reason: "none" };
  const passing: Array<{ item: T; s: number }> = [];
  let reason: "stable-differs" | "too-far" = "stable-differs";
  for (const c of candidates) {
    if (stableMismatch(components, c.components) !== undefined) continue;
    const s = similarity(components, c.components);
    if (s < REID_MATCH) {
      reason = "too-far";
      continue;
    }
    passing.push({ item: c.item, s });
  }
  if (passing.length === 0) return { reason };
  passing.sort((x, y) => y.s - x.s);
  const [best, second] = passing as [{ item: T; s: number }, ...Array<{ item: T; s: number }>];
  if (second && best.s - second.s < REID_MARGIN) return { reason: "ambiguous" };
  return { match: best.item, similarity: best.s };
}
