// Server-side fingerprints from FingerprintJS components (SPEC.md 6). The client's own hash is never trusted.
// Exact components → the same id with confidence 1; small drift (a browser update, a new font, a resized window)
// → the same id with lower confidence; large drift → a new fingerprint; too little entropy → none at all.
// Candidates for drift come from an index on a coarse key of the most stable components, never from a scan.
import { createHash } from "node:crypto";
import type { Components } from "@tessera/sdk/contract";

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

export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
      .join(",")}}`;
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

function coarseValue(n: Record<string, unknown>, key: string): unknown {
  const [head, field] = key.split(".");
  const v = n[head as string];
  if (field === undefined) return v ?? null;
  return v && typeof v === "object" ? ((v as Record<string, unknown>)[field] ?? null) : null;
}

/** Below this total weight the components cannot tell browsers apart: no fingerprint rather than a false one. */
export const MIN_ENTROPY_WEIGHT = 14;
/** At or above this similarity a known fingerprint is the same browser. Measured by `npm run scenarios`. */
export const MATCH_THRESHOLD = 0.8;
/** Components that identify the machine: if several of them all changed, it is another browser or machine. */
const IDENTIFYING = ["canvas", "audio", "webGlBasics", "fonts"] as const;

const weightOf = (key: string): number => COMPONENT_WEIGHTS[key] ?? 1;

export function entropyWeight(n: Record<string, unknown>): number {
  let w = 0;
  for (const key of Object.keys(n)) w += weightOf(key);
  return w;
}

export function coarseKey(n: Record<string, unknown>): string {
  return sha256(stableStringify(COARSE.map((k) => coarseValue(n, k)))).slice(0, 24);
}

function setSimilarity(a: unknown[], b: unknown[]): number {
  const A = new Set(a.map(stableStringify));
  const B = new Set(b.map(stableStringify));
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 1 : inter / union;
}

/** Credit in [0, 1] for one component: 1 when equal; partial for lists (fonts) and for objects by field. */
function componentSimilarity(a: unknown, b: unknown): number {
  if (a === b) return 1;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (stableStringify(a) === stableStringify(b)) return 1;
    // Font lists and the like gain or lose an entry: Jaccard credit, squared so half-different lists count little.
    return setSimilarity(a, b) ** 2;
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    if (keys.size === 0) return 1;
    let same = 0;
    for (const k of keys) if (stableStringify(ao[k]) === stableStringify(bo[k])) same++;
    return (same / keys.size) ** 2;
  }
  return stableStringify(a) === stableStringify(b) ? 1 : 0;
}

/** Weighted similarity in [0, 1] of two normalised component sets; 0 when the identifying components all differ. */
export function similarity(a: Record<string, unknown>, b: Record<string, unknown>): number {
  // Another browser family or OS is another browser, however alike the rest.
  if (UA_FAMILY in a && UA_FAMILY in b && a[UA_FAMILY] !== b[UA_FAMILY]) return 0;
  let total = 0;
  let got = 0;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const w = weightOf(key);
    total += w;
    if (key in a && key in b) got += w * componentSimilarity(a[key], b[key]);
  }
  const present = IDENTIFYING.filter((k) => k in a && k in b);
  const changed = present.filter((k) => componentSimilarity(a[k], b[k]) < 0.5);
  if (present.length >= 2 && changed.length >= present.length - 1 && changed.length >= 2) return 0;
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
 * Parsed components of known fingerprints by `id:exact_hash` (a drift update changes the hash, so a stale entry is
 * never used). Matching compares a request with up to a hundred candidates: reading and parsing their JSON on every
 * request was the largest single cost of an evaluation. Bounded; the oldest entries go first.
 */
export class ParsedComponentsCache {
  private readonly map = new Map<string, Record<string, unknown>>();
  constructor(private readonly max = 2000) {}

  get(id: string, hash: string): Record<string, unknown> | undefined {
    return this.map.get(`${id}:${hash}`);
  }

  set(id: string, hash: string, parsed: Record<string, unknown>): void {
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as string);
    this.map.set(`${id}:${hash}`, parsed);
  }
}
