// Seeded randomness for the population model. Every draw comes from a stream named after what it decides (a person,
// a device, a day), so adding a draw in one place never shifts another: a person keeps their devices when the traffic
// generator changes, and a held-out seed is a different population, not a shifted one.
export type Rng = () => number;

/** FNV-1a over the seed and the names: the seed of one named stream. */
function hashNames(seed: number, names: ReadonlyArray<string | number | boolean>): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (const name of names) {
    const s = String(name);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x2f, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, and the same values on every machine. */
export function rng(seed: number): Rng {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The stream named `names` under `seed`. */
export const stream = (seed: number, ...names: Array<string | number>): Rng => rng(hashNames(seed, names));

export const chance = (r: Rng, p: number): boolean => r() < p;
export const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** One of `xs` with probability proportional to its weight. */
export function weighted<T>(r: Rng, xs: ReadonlyArray<readonly [T, number]>): T {
  let total = 0;
  for (const [, w] of xs) total += w;
  let x = r() * total;
  for (const [v, w] of xs) {
    x -= w;
    if (x < 0) return v;
  }
  return (xs[xs.length - 1] as readonly [T, number])[0];
}

/** A short stable hex digest of some values: stands for a rendered image or a parameter dump that depends on them. */
export function digest(...parts: Array<string | number | boolean>): string {
  return hashNames(0x9e3779b9, parts).toString(16).padStart(8, "0") + hashNames(0x85ebca6b, parts).toString(16).padStart(8, "0");
}
