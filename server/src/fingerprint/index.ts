// Server-side fingerprints from FingerprintJS components (docs/identity.md). The client's own hash is never trusted.
// What is hashed and compared is the measured part of the components (values a browser reports as skipped or
// randomised are left out); each component weighs what it tells one machine from another of the same coarse key
// (weights.ts, derived from the population model); a set below IDENTIFYING_BITS describes a model, not a machine.
// Which candidates a request is compared with is decided by the identity step (pipeline/identity.ts).
import { createHash } from "node:crypto";
import type { Components } from "@tessera/sdk/contract";
import { BoundedMap } from "../caches.js";
import { FINGERPRINT_WEIGHTS } from "./weights.js";

/** Components reduced to their values, keys sorted, so that the same browser always hashes the same. */
export function normaliseComponents(components: Components): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(components).sort()) {
    const c = components[key];
    if (c && c.value !== undefined) out[key] = c.value;
  }
  return out;
}

/**
 * The synthetic component the server adds from the request's own User-Agent header: browser family and OS, no
 * versions. FingerprintJS components do not carry the user agent; a browser update keeps this value, while another
 * browser or OS on the same hardware (which can produce identical canvas, audio and WebGL) is another fingerprint.
 */
export const UA_FAMILY = "uaFamily";

/** The components a fingerprint is computed from: the client's values plus the server-seen browser family. */
export function fingerprintComponents(components: Components, ua: { browser?: string; os?: string }): Record<string, unknown> {
  const n = normaliseComponents(components);
  if (Object.keys(n).length > 0 && (ua.browser || ua.os)) n[UA_FAMILY] = `${ua.browser ?? "?"}/${ua.os ?? "?"}`;
  return n;
}

/**
 * JSON with object keys sorted, so that equal values always give the same text (the exact hash and the coarse key
 * are stored: this text must never change). Built by appending rather than by mapping and joining: it runs on every
 * request and on every component of every drift candidate. An array's hole writes nothing (what `map` and `join`
 * did); `undefined`, functions and symbols write `null`, in arrays and objects alike.
 */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      if (i in v) out += stableStringify(v[i]);
    }
    return `${out}]`;
  }
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (i > 0) out += ",";
      out += `${JSON.stringify(k)}:${stableStringify(o[k])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(v) ?? "null";
}

export const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

/** The exact hash of a component set: over its measured components, so a farbled or skipped value changes nothing. */
export function exactHash(normalised: Record<string, unknown>): string {
  return measuredHash(measuredComponents(normalised));
}

/** exactHash of components already reduced to their measured part. */
export const measuredHash = (measured: Record<string, unknown>): string => sha256(stableStringify(measured));

/**
 * FingerprintJS's own markers of a value the browser did not really measure (fp.esm.js, v5): the canvas "skipped"
 * by Safari 17+ and Firefox 120+ (and "unsupported", "unstable" where the image is noised), negative special values of
 * audio (-1 suspending, -2 unsupported, -3 timeout, -4 anti-fingerprinting in Safari 17+ and Samsung Internet 26+),
 * of audioBaseLatency and dateTimeLocale, WebGL without a context (-1, -2), Apple Pay without the API, and screen sizes
 * that are not numbers. Such a value is the same on every machine of a browser family: it carries no weight.
 */
const CANVAS_MARKERS = new Set(["skipped", "unsupported", "unstable"]);

/**
 * Components Brave farbles (randomises per session and site, brave-core "farbling"): canvas and audio are noised,
 * hardwareConcurrency and deviceMemory drawn at random, plugins padded with fakes. Brave says who it is in
 * userAgentData.brands (its user agent string is Chrome's).
 */
const BRAVE_FARBLED = ["canvas", "audio", "hardwareConcurrency", "deviceMemory", "plugins"] as const;

function isBrave(n: Record<string, unknown>): boolean {
  const uad = n.userAgentData;
  if (!uad || typeof uad !== "object") return false;
  const brands = (uad as Record<string, unknown>).brands;
  return Array.isArray(brands) && brands.includes("Brave");
}

function unmeasured(key: string, v: unknown): boolean {
  switch (key) {
    case "canvas": {
      if (!v || typeof v !== "object") return true;
      const c = v as Record<string, unknown>;
      const marked = (x: unknown) => typeof x === "string" && CANVAS_MARKERS.has(x);
      return marked(c.geometry) || marked(c.text);
    }
    case "audio":
    case "audioBaseLatency":
    case "applePay":
      return typeof v !== "number" || v < 0;
    case "dateTimeLocale":
      return typeof v !== "string";
    case "webGlBasics":
    case "webGlExtensions":
      return !v || typeof v !== "object";
    case "screenResolution":
    case "screenFrame":
      return !Array.isArray(v) || !v.some((x) => typeof x === "number");
    default:
      return false;
  }
}

/**
 * The components that describe this machine: the normalised set without the values the browser reports as not
 * measured or randomised (docs/identity.md). Exact hashes, coarse keys, weights and similarity all read this set, so a
 * farbled canvas or a "skipped" one neither tells browsers apart nor keeps one from matching itself.
 */
export function measuredComponents(n: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const brave = isBrave(n);
  for (const key in n) {
    const v = n[key];
    if (v === undefined || unmeasured(key, v)) continue;
    if (brave && (BRAVE_FARBLED as readonly string[]).includes(key)) continue;
    out[key] = v;
  }
  return out;
}

/**
 * The weight group of a component set: the engine (from FingerprintJS's vendor: "Google Inc." Blink, "Apple Computer,
 * Inc." WebKit, "" Gecko) and the platform's OS. What varies between machines differs by group (fonts vary between
 * Windows PCs and never between iPhones), so weights are looked up per group. Derived from the components alone, so a
 * stored fingerprint and a request agree on it.
 */
export function weightGroup(n: Record<string, unknown>): string {
  const vendor = n.vendor;
  const engine = vendor === "Google Inc." ? "blink" : vendor === "Apple Computer, Inc." ? "webkit" : vendor === "" ? "gecko" : "other";
  const platform = typeof n.platform === "string" ? n.platform : "";
  const os =
    platform === "iPhone" || platform === "iPad" || platform === "iPod"
      ? "ios"
      : platform.startsWith("Win")
        ? "windows"
        : platform.startsWith("Mac")
          ? "macos"
          : /^Linux (arm|aarch)/i.test(platform)
            ? "android"
            : platform.startsWith("Linux")
              ? "linux"
              : "other";
  return `${engine}/${os}`;
}

/** Bits of a component in the group's table (FINGERPRINT_WEIGHTS, derived from the population model); unknown: 0. */
function weightsOf(group: string): Record<string, number> {
  return FINGERPRINT_WEIGHTS.groups[group] ?? FINGERPRINT_WEIGHTS.groups["*"] ?? {};
}

/**
 * How much a set of measured components tells a machine from the others of its coarse key, in bits: the sum of each
 * present component's weight (its entropy between machines of one coarse key, see weights.ts). Platform constants
 * (math, vendor, storage flags) weigh nothing; a Windows PC's fonts, screen and locale weigh a lot; an iPhone's
 * components almost nothing.
 */
export function identifyingBits(measured: Record<string, unknown>, group = weightGroup(measured)): number {
  const w = weightsOf(group);
  let bits = 0;
  for (const key in measured) bits += w[key] ?? 0;
  return bits;
}

/**
 * At or above this many bits a fingerprint is identifying: one machine in 2^10 = 1,024 of its coarse key (same browser
 * family, platform, GPU, cores, memory) shares it by chance. Below, the components describe a model, not a machine:
 * they are never matched across visitor tokens and never link accounts (docs/identity.md). FingerprintJS's components carry
 * 5–12 bits within a model in the population model (weights.ts): Chromium on Windows and macOS reach this; Safari,
 * Firefox, iOS and Android browsers are recognised by their visitor token only. A match across tokens is further
 * bounded: only to the named user's own device, and a fingerprint many people present stops linking (popular).
 */
export const IDENTIFYING_BITS = 10;

/**
 * A browser that kept its visitor token is the same browser after a drift when at least half of its identifying
 * information (weighted, see similarity) still agrees; below that the token is carried by another browser.
 */
export const TOKEN_MATCH = 0.5;

/**
 * The components of the coarse key: hardware and platform facts a browser update, a font or a window leave alone,
 * the GPU as the unmasked renderer (Chromium's masked renderer is "WebKit WebGL" everywhere; Firefox reports the GPU
 * in the masked one and leaves the unmasked empty). The weights are entropies within one coarse key.
 */
const COARSE = [
  UA_FAMILY,
  "platform",
  "hardwareConcurrency",
  "deviceMemory",
  "colorDepth",
  "vendor",
  "architecture",
  "touchSupport",
] as const;

function gpuOf(n: Record<string, unknown>): unknown {
  const gl = n.webGlBasics;
  if (!gl || typeof gl !== "object") return null;
  const g = gl as Record<string, unknown>;
  return (typeof g.rendererUnmasked === "string" && g.rendererUnmasked) || g.renderer || null;
}

/** The coarse key of a measured component set (see COARSE). */
export function coarseKey(measured: Record<string, unknown>): string {
  const values: unknown[] = COARSE.map((k) => measured[k] ?? null);
  values.push(gpuOf(measured));
  return sha256(stableStringify(values)).slice(0, 24);
}

/**
 * Strings, finite numbers and booleans: values JSON writes one to one (0 and -0 both as 0, but they are also ===),
 * so comparing them directly decides what comparing their stable JSON would, without writing it.
 */
function isPlain(v: unknown): boolean {
  return typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function allPlain(xs: unknown[]): boolean {
  for (let i = 0; i < xs.length; i++) if (!isPlain(xs[i])) return false;
  return true;
}

/**
 * Surely the same stable JSON: the same shape, the same keys, === leaves. False proves nothing (null and
 * undefined, say, both write null), but components mostly are alike, and this answers them without writing JSON.
 */
function surelySame(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
  if (Array.isArray(x)) {
    if (!Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      if (!surelySame(x[i], y[i])) return false;
      // A hole writes nothing where an undefined element writes null.
      if (x[i] === undefined && i in x !== i in y) return false;
    }
    return true;
  }
  if (Array.isArray(y)) return false;
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  const keys = Object.keys(xo);
  if (keys.length !== Object.keys(yo).length) return false;
  for (const k of keys) if (!Object.prototype.propertyIsEnumerable.call(yo, k) || !surelySame(xo[k], yo[k])) return false;
  return true;
}

/** stableStringify(x) === stableStringify(y), without writing either when the values decide it. */
function sameJson(x: unknown, y: unknown): boolean {
  if (isPlain(x) && isPlain(y)) return x === y;
  return surelySame(x, y) || stableStringify(x) === stableStringify(y);
}

/** Jaccard index of two sets; two empty sets are alike. */
function jaccard<T>(A: Set<T>, B: Set<T>): number {
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 1 : inter / union;
}

/** Each element's stable JSON. A hole writes nothing in the list's JSON; as a set element it stays apart from every other. */
function elementsJson(xs: unknown[]): string[] {
  const out = new Array<string>(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = i in xs ? stableStringify(xs[i]) : "";
  return out;
}

/**
 * Credit for two lists: 1 when their stable JSON is equal, else the Jaccard index of their elements' stable JSON,
 * squared. Lists of plain values (font names, a screen size) are compared as values: the same verdicts as their
 * JSON without writing it. Other lists write each element once, for the equality and the sets alike.
 */
function listSimilarity(a: unknown[], b: unknown[]): number {
  if (allPlain(a) && allPlain(b)) {
    if (a.length === b.length) {
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      if (i === a.length) return 1;
    }
    return jaccard(new Set(a), new Set(b)) ** 2;
  }
  if (surelySame(a, b)) return 1;
  const A = elementsJson(a);
  const B = elementsJson(b);
  if (A.join(",") === B.join(",")) return 1;
  return jaccard(new Set(A), new Set(B)) ** 2;
}

/** Credit in [0, 1] for one component: 1 when equal; partial for lists (fonts) and for objects by field. */
function componentSimilarity(a: unknown, b: unknown): number {
  if (a === b) return 1;
  if (isPlain(a) && isPlain(b)) return 0;
  // Font lists and the like gain or lose an entry: Jaccard credit, squared so half-different lists count little.
  if (Array.isArray(a) && Array.isArray(b)) return listSimilarity(a, b);
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    // Over the union of both objects' own keys: a's, then b's that a lacks.
    let keys = 0;
    let same = 0;
    for (const k of Object.keys(ao)) {
      keys++;
      if (sameJson(ao[k], bo[k])) same++;
    }
    for (const k of Object.keys(bo)) {
      if (Object.prototype.propertyIsEnumerable.call(ao, k)) continue;
      keys++;
      if (sameJson(ao[k], bo[k])) same++;
    }
    if (keys === 0) return 1;
    return (same / keys) ** 2;
  }
  return sameJson(a, b) ? 1 : 0;
}

/**
 * Weighted similarity in [0, 1] of two component sets, over their measured components: each component's credit
 * (1 when equal, partial for lists and objects) weighted by its bits in the group's table, over the bits either side
 * has. Another browser family or OS is 0. Two sets with no identifying bits at all are alike (1): nothing tells them
 * apart, which is why such sets are matched only through a visitor token.
 */
export function similarity(a: Record<string, unknown>, b: Record<string, unknown>): number {
  if (UA_FAMILY in a && UA_FAMILY in b && a[UA_FAMILY] !== b[UA_FAMILY]) return 0;
  const ma = measuredComponents(a);
  const mb = measuredComponents(b);
  const w = weightsOf(weightGroup(ma));
  let total = 0;
  let got = 0;
  for (const key in ma) {
    const bits = w[key] ?? 0;
    if (bits === 0) continue;
    total += bits;
    if (key in mb) got += bits * componentSimilarity(ma[key], mb[key]);
  }
  for (const key in mb) {
    if (key in ma) continue;
    total += w[key] ?? 0;
  }
  return total === 0 ? 1 : got / total;
}

/**
 * Parsed components of known fingerprints by id, with the exact hash they were parsed for (a drift update changes
 * the hash, so a stale entry is never used, and the next set replaces it). Matching compares a request with up to a
 * hundred candidates: reading and parsing their JSON on every request was the largest single cost of an evaluation.
 * Keyed by the id alone, not by `id:hash`: building and hashing that long key on every probe showed in profiles.
 * Bounded; the oldest entries go first.
 */
export class ParsedComponentsCache {
  private readonly map: BoundedMap<string, { hash: string; parsed: Record<string, unknown> }>;
  constructor(max = 2000) {
    this.map = new BoundedMap(max);
  }

  get(id: string, hash: string): Record<string, unknown> | undefined {
    const entry = this.map.get(id);
    return entry !== undefined && entry.hash === hash ? entry.parsed : undefined;
  }

  set(id: string, hash: string, parsed: Record<string, unknown>): void {
    this.map.delete(id); // a refreshed entry is the newest
    this.map.set(id, { hash, parsed });
  }
}
