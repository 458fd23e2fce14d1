// The exact hash and the coarse key are stored, and the drift thresholds were measured on similarity's values: the
// faster stableStringify and per-component credit must answer exactly what the first implementations did. Those are
// kept here as the reference (the weighting over measured components, written plainly beside them; docs/identity.md), and
// both are run over varied values from a seeded generator.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rng } from "../../scenarios/population/random.js";
import { coarseKey, exactHash, measuredComponents, similarity, stableStringify, UA_FAMILY, weightGroup } from "./index.js";
import { FINGERPRINT_WEIGHTS } from "./weights.js";

function refStableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(refStableStringify).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${refStableStringify(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

const refSha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

const REF_COARSE = [
  UA_FAMILY,
  "platform",
  "hardwareConcurrency",
  "deviceMemory",
  "colorDepth",
  "vendor",
  "architecture",
  "touchSupport",
] as const;

function refGpu(n: Record<string, unknown>): unknown {
  const gl = n.webGlBasics as Record<string, unknown> | undefined;
  if (!gl || typeof gl !== "object") return null;
  return (typeof gl.rendererUnmasked === "string" && gl.rendererUnmasked) || gl.renderer || null;
}

const refCoarseKey = (n: Record<string, unknown>): string =>
  refSha256(refStableStringify([...REF_COARSE.map((k) => n[k] ?? null), refGpu(n)])).slice(0, 24);

function refSetSimilarity(a: unknown[], b: unknown[]): number {
  const A = new Set(a.map(refStableStringify));
  const B = new Set(b.map(refStableStringify));
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 1 : inter / union;
}

function refComponentSimilarity(a: unknown, b: unknown): number {
  if (a === b) return 1;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (refStableStringify(a) === refStableStringify(b)) return 1;
    return refSetSimilarity(a, b) ** 2;
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    if (keys.size === 0) return 1;
    let same = 0;
    for (const k of keys) if (refStableStringify(ao[k]) === refStableStringify(bo[k])) same++;
    return (same / keys.size) ** 2;
  }
  return refStableStringify(a) === refStableStringify(b) ? 1 : 0;
}

function refSimilarity(a: Record<string, unknown>, b: Record<string, unknown>): number {
  if (UA_FAMILY in a && UA_FAMILY in b && a[UA_FAMILY] !== b[UA_FAMILY]) return 0;
  const ma = measuredComponents(a);
  const mb = measuredComponents(b);
  const w = FINGERPRINT_WEIGHTS.groups[weightGroup(ma)] ?? FINGERPRINT_WEIGHTS.groups["*"] ?? {};
  let total = 0;
  let got = 0;
  for (const key of new Set([...Object.keys(ma), ...Object.keys(mb)])) {
    const bits = w[key] ?? 0;
    total += bits;
    if (key in ma && key in mb) got += bits * refComponentSimilarity(ma[key], mb[key]);
  }
  return total === 0 ? 1 : got / total;
}

/** The list with a hole at i (JSON has none, but a caller's value might). */
function withHole(xs: unknown[], i: number): unknown[] {
  const out = [...xs];
  delete out[i];
  return out;
}

const STRINGS = [
  "",
  "a",
  "Arial",
  "en-US",
  "é",
  "日本語",
  "😀",
  "\ud800",
  "\u0000",
  '"',
  "\\",
  "a,b",
  "[1]",
  "{}",
  "null",
  "1",
  "__proto__",
  "10",
  "2",
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1.5,
  124.04347527516074,
  1e21,
  1e-7,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -Infinity,
];
const KEYS = ["a", "b", "B", "z", "é", "10", "2", "0", "__proto__", "constructor", "key with space", "😀", "canvas", "fonts"];

/** A random value: primitives of every kind, nested arrays (some with holes) and objects (keys in random order). */
function randomValue(r: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const kind = Math.floor(r() * (depth > 0 ? 9 : 6));
  switch (kind) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick(NUMBERS);
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return r() < 0.8 ? undefined : pick([() => 1, Symbol("s")]);
    case 5:
      return Math.floor(r() * 2000) - 1000;
    case 6:
    case 7: {
      const xs: unknown[] = [];
      const len = Math.floor(r() * 5);
      for (let i = 0; i < len; i++) xs.push(randomValue(r, depth - 1));
      // A hole now and then.
      if (len > 0 && r() < 0.1) delete xs[Math.floor(r() * len)];
      return xs;
    }
    default: {
      const o: Record<string, unknown> = {};
      const len = Math.floor(r() * 5);
      for (let i = 0; i < len; i++)
        Object.defineProperty(o, pick(KEYS), { value: randomValue(r, depth - 1), enumerable: true, writable: true, configurable: true });
      return o;
    }
  }
}

/** A little drift of a value: a changed element, field or primitive, or a deep copy of the same. */
function drift(r: () => number, v: unknown): unknown {
  const roll = r();
  if (roll < 0.4) return JSON.parse(JSON.stringify([v]) ?? "[null]")[0];
  if (roll < 0.5) return randomValue(r, 2);
  if (Array.isArray(v)) {
    const xs = [...v];
    if (xs.length > 0 && r() < 0.5) xs[Math.floor(r() * xs.length)] = randomValue(r, 1);
    else xs.push(randomValue(r, 1));
    return r() < 0.3 ? xs.reverse() : xs;
  }
  if (v && typeof v === "object") {
    const o = { ...(v as Record<string, unknown>) };
    const keys = Object.keys(o);
    if (keys.length > 0 && r() < 0.5) o[keys[Math.floor(r() * keys.length)] as string] = randomValue(r, 1);
    else o[KEYS[Math.floor(r() * KEYS.length)] as string] = randomValue(r, 1);
    return o;
  }
  return v;
}

const COMPONENT_NAMES = [
  UA_FAMILY,
  ...Object.keys(FINGERPRINT_WEIGHTS.groups["blink/windows"] ?? {}).slice(0, 18),
  "platform",
  "vendor",
  "unknownComponent",
  "webGlBasics",
];

/** Component sets like the browsers': plausible values most of the time, random ones otherwise. */
function randomComponents(r: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of COMPONENT_NAMES) {
    if (r() < 0.2) continue;
    if (name === UA_FAMILY) out[name] = r() < 0.8 ? "Chrome/Windows" : "Firefox/Linux";
    else if (name === "fonts") out[name] = ["Arial", "Helvetica", "Courier New", `Font${Math.floor(r() * 5)}`].filter(() => r() < 0.8);
    else if (name === "canvas") out[name] = { winding: true, geometry: `g${Math.floor(r() * 3)}`, text: `t${Math.floor(r() * 3)}` };
    else if (name === "webGlBasics") out[name] = { renderer: `GPU ${Math.floor(r() * 3)}`, vendor: r() < 0.5 ? "Google Inc." : undefined };
    else if (name === "platform") out[name] = r() < 0.8 ? "Win32" : "Linux x86_64";
    else if (name === "vendor") out[name] = r() < 0.8 ? "Google Inc." : "";
    else if (name === "audio") out[name] = 124.04 + Math.floor(r() * 3) / 1000;
    else out[name] = randomValue(r, 3);
  }
  return out;
}

describe("stableStringify, the exact hash and the coarse key against the first implementation", () => {
  it("writes the same text for every kind of value", () => {
    const fixed: unknown[] = [
      undefined,
      null,
      -0,
      Number.NaN,
      "\ud800x",
      [undefined, null, () => 1],
      withHole([1, 2, 3], 1),
      new Array(2),
      { b: 1, a: [2, { d: undefined, c: "日本語" }], "10": 0, "2": 1 },
      JSON.parse('{"__proto__": {"x": 1}, "a": 1}'),
      new Date(0),
      Object.create(null),
    ];
    for (const v of fixed) expect(stableStringify(v)).toBe(refStableStringify(v));
    const r = rng(1);
    for (let i = 0; i < 5000; i++) {
      const v = randomValue(r, 4);
      expect(stableStringify(v)).toBe(refStableStringify(v));
    }
  });

  it("keeps the exact hash and the coarse key byte for byte", () => {
    const r = rng(2);
    for (let i = 0; i < 2000; i++) {
      const n = randomComponents(r);
      expect(exactHash(n)).toBe(refSha256(refStableStringify(measuredComponents(n))));
      expect(coarseKey(n)).toBe(refCoarseKey(n));
    }
  });
});

describe("similarity against the plain reference", () => {
  it("gives the very same number for alike, drifted and unrelated component sets", () => {
    const r = rng(3);
    for (let i = 0; i < 5000; i++) {
      const a = randomComponents(r);
      let b: Record<string, unknown>;
      if (r() < 0.3) b = randomComponents(r);
      else {
        b = {};
        for (const [k, v] of Object.entries(a)) if (r() < 0.95) b[k] = r() < 0.7 ? drift(r, v) : v;
        if (r() < 0.2) b.unknownComponent = randomValue(r, 2);
      }
      expect(similarity(a, b)).toBe(refSimilarity(a, b));
      expect(similarity(b, a)).toBe(refSimilarity(b, a));
    }
  });

  it("agrees on the edge values: holes, undefined against null, NaN, empty lists and objects", () => {
    const cases: Array<[unknown, unknown]> = [
      [withHole([1, 2, 3], 1), [1, undefined, 3]],
      [new Array(2), []],
      [[undefined], [null]],
      [[Number.NaN], [null]],
      [[Number.NaN], [Number.NaN]],
      [[0], [-0]],
      [[], []],
      [{}, {}],
      [{ a: undefined }, {}],
      [{ a: undefined }, { b: null }],
      [[1, 2], { 0: 1, 1: 2 }],
      [["1"], [1]],
      [null, undefined],
      [Number.NaN, Number.POSITIVE_INFINITY],
      [[["en-US", "en"]], [["en-US", "en"]]],
      [[{ b: 1, a: 2 }], [{ a: 2, b: 1 }]],
      [{ x: [1, 2] }, { x: [1, 2] }],
    ];
    for (const [x, y] of cases) {
      for (const key of ["fonts", "canvas", "screenResolution"]) {
        const a = { [key]: x, audio: 1, platform: "Win32", vendor: "Google Inc.", timezone: "Europe/Paris" };
        const b = { [key]: y, audio: 1, platform: "Win32", vendor: "Google Inc.", timezone: "Europe/Paris" };
        expect(similarity(a, b), `${key}: ${String(x)} / ${String(y)}`).toBe(refSimilarity(a, b));
      }
    }
  });
});
