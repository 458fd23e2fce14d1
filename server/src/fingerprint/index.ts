// Server-side fingerprints from FingerprintJS components (SPEC.md 6). The client's own hash is never trusted.
// Exact components → the same id with confidence 1; small drift (a browser update, a new font, a resized window)
// → the same id with lower confidence; large drift → a new fingerprint; too little entropy → none at all.
// Candidates for drift come from an index on a coarse key of the most stable components, never from a scan.
import { createHash } from "node:crypto";
import type { Components } from "@tessera/sdk/contract";
import { BoundedMap } from "../caches.js";

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

export function exactHash(normalised: Record<string, unknown>): string {
  return sha256(stableStringify(normalised));
}

/**
 * Weight of each component: how much it tells browsers apart (uniqueness) times how rarely it changes on one
 * browser (stability). Canvas, audio, WebGL and fonts identify; screen, languages and time zone change with
 * a monitor, a setting or a trip and so weigh little. Unknown components weigh 1.
 */
export const COMPONENT_WEIGHTS: Record<string, number> = {
  canvas: 10,
  fonts: 8,
  audio: 6,
  webGlBasics: 6,
  webGlExtensions: 4,
  fontPreferences: 5,
  math: 3,
  platform: 3,
  vendor: 3,
  hardwareConcurrency: 3,
  deviceMemory: 2,
  plugins: 2,
  languages: 2,
  screenResolution: 1,
  screenFrame: 1,
  colorDepth: 1,
  timezone: 1,
  vendorFlavors: 2,
  architecture: 2,
  colorGamut: 1,
  hdr: 1,
  touchSupport: 2,
  osCpu: 2,
  contrast: 0.5,
  reducedMotion: 0.5,
  forcedColors: 0.5,
  invertedColors: 0.5,
  monochrome: 0.5,
  cookiesEnabled: 0.2,
  sessionStorage: 0.2,
  localStorage: 0.2,
  indexedDB: 0.2,
  openDatabase: 0.2,
  pdfViewerEnabled: 0.5,
  domBlockers: 1,
  privateClickMeasurement: 0.5,
  applePay: 0.5,
  // A hard constraint (see similarity), not an identifier: millions of browsers share a family.
  [UA_FAMILY]: 1,
};

/**
 * The components of the coarse key: hardware and platform facts a browser update, a font or a window leave alone
 * (the GPU renderer narrows candidate sets tenfold; a driver update that changes it is caught by the visitor token).
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
  "webGlBasics.renderer",
] as const;

/** The coarse components as paths, split once: [component] or [component, field]. */
const COARSE_PATHS = COARSE.map((k) => k.split("."));

function coarseValue(n: Record<string, unknown>, [head, field]: string[]): unknown {
  const v = n[head as string];
  if (field === undefined) return v ?? null;
  return v && typeof v === "object" ? ((v as Record<string, unknown>)[field] ?? null) : null;
}

/** Below this total weight the components cannot tell browsers apart: no fingerprint rather than a false one. */
export const MIN_ENTROPY_WEIGHT = 14;
/** At or above this similarity a known fingerprint is the same browser. Measured by `npm run scenarios`. */
export const MATCH_THRESHOLD = 0.8;

const weightOf = (key: string): number => COMPONENT_WEIGHTS[key] ?? 1;

export function entropyWeight(n: Record<string, unknown>): number {
  let w = 0;
  for (const key of Object.keys(n)) w += weightOf(key);
  return w;
}

export function coarseKey(n: Record<string, unknown>): string {
  return sha256(stableStringify(COARSE_PATHS.map((path) => coarseValue(n, path)))).slice(0, 24);
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

/** Components that identify the machine: if several of them all changed, it is another browser or machine. */
const IDENTIFYING = new Set(["canvas", "audio", "webGlBasics", "fonts"]);

/** Weighted similarity in [0, 1] of two normalised component sets; 0 when the identifying components all differ. */
export function similarity(a: Record<string, unknown>, b: Record<string, unknown>): number {
  // Another browser family or OS is another browser, however alike the rest.
  if (UA_FAMILY in a && UA_FAMILY in b && a[UA_FAMILY] !== b[UA_FAMILY]) return 0;
  let total = 0;
  let got = 0;
  // Identifying components present on both sides, and those of them that changed (credit below one half). Counted
  // in the loop below, which sees every own key: components are plain data, where a key present is an own key.
  let present = 0;
  let changed = 0;
  // Over the union of both sets' keys, a's first: the order of the sums, so the very same floating-point result.
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  for (let i = 0; i < ka.length + kb.length; i++) {
    const key = (i < ka.length ? ka[i] : kb[i - ka.length]) as string;
    if (i >= ka.length && Object.prototype.propertyIsEnumerable.call(a, key)) continue;
    const w = weightOf(key);
    total += w;
    if (key in a && key in b) {
      const s = componentSimilarity(a[key], b[key]);
      got += w * s;
      if (IDENTIFYING.has(key)) {
        present++;
        if (s < 0.5) changed++;
      }
    }
  }
  if (present >= 2 && changed >= present - 1 && changed >= 2) return 0;
  return total === 0 ? 0 : got / total;
}

export interface MatchResult<T> {
  candidate: T;
  confidence: number;
}

/** The best candidate at or above the threshold; confidence is the similarity itself (identical → 1). */
export function bestMatch<T extends { components: string }>(
  n: Record<string, unknown>,
  candidates: T[],
  threshold = MATCH_THRESHOLD,
): MatchResult<T> | undefined {
  const parsed: Array<{ candidate: T; parsed: Record<string, unknown> }> = [];
  for (const c of candidates) {
    try {
      parsed.push({ candidate: c, parsed: JSON.parse(c.components) as Record<string, unknown> });
    } catch {
      // A corrupt row is no candidate.
    }
  }
  const best = bestParsedMatch(n, parsed, threshold);
  return best && { candidate: best.candidate.candidate, confidence: best.confidence };
}

/** bestMatch over candidates whose components are already parsed (the evaluate path keeps them parsed in memory). */
export function bestParsedMatch<T extends { parsed: Record<string, unknown> }>(
  n: Record<string, unknown>,
  candidates: T[],
  threshold = MATCH_THRESHOLD,
): MatchResult<T> | undefined {
  let best: MatchResult<T> | undefined;
  for (const c of candidates) {
    const s = similarity(n, c.parsed);
    if (s >= threshold && (!best || s > best.confidence)) best = { candidate: c, confidence: Math.round(s * 1000) / 1000 };
  }
  return best;
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
