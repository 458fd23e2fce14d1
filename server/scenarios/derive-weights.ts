// Derives the fingerprint weights (server/src/fingerprint/weights.ts) from the population model: for each weight
// group (engine/OS), each component's entropy between machines that share a coarse key (same browser family,
// platform, GPU, cores, memory), in bits — what the component tells one machine from another of the same model.
// Measured values only (fingerprint/measuredComponents): a skipped or farbled value weighs nothing. Held-out models
// are never used. Components that follow one setting are clustered (see CLUSTER_NMI) so that a person's time zone,
// languages and date locale count once. Run: npx tsx server/scenarios/derive-weights.ts [people=20000] (rewrites
// weights.ts).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { coarseKey, fingerprintComponents, measuredComponents, stableStringify, UA_FAMILY, weightGroup } from "../src/fingerprint/index.js";
import { parseUserAgent } from "../src/pipeline/identity.js";
import { components, userAgent } from "./population/browsers.js";
import { population } from "./population/honest.js";

/** The weights' own seed: not one the suite measures with (tuning 1001.., held out 2001..). */
const SEED = 7;
const PEOPLE = Number(process.argv[2] ?? 20000);

const browsers = [...new Set(population({ seed: SEED, people: PEOPLE, days: 1, heldOut: false, start: 0 }).flatMap((p) => p.browsers))];
// group → coarse key → component → value → count
const counts = new Map<string, Map<string, Map<string, Map<string, number>>>>();
const sizes = new Map<string, Map<string, number>>();
const keysSeen = new Set<string>();
// group → coarse key → "a|b" → joint value → count
const jointCounts = new Map<string, Map<string, Map<string, Map<string, number>>>>();
for (const b of browsers) {
  const wire = Object.fromEntries(Object.entries(components(b.state)).map(([k, v]) => [k, { value: v }]));
  const n = fingerprintComponents(wire, parseUserAgent(userAgent(b.state)).info);
  const m = measuredComponents(n);
  const group = weightGroup(m);
  const coarse = coarseKey(m);
  const g = counts.get(group) ?? new Map();
  counts.set(group, g);
  const bucket = g.get(coarse) ?? new Map();
  g.set(coarse, bucket);
  const size = sizes.get(group) ?? new Map();
  sizes.set(group, size);
  size.set(coarse, (size.get(coarse) ?? 0) + 1);
  for (const k of Object.keys(n)) keysSeen.add(k);
  const values = new Map<string, string>();
  for (const k of keysSeen) {
    const value = k in m ? stableStringify(m[k]) : "∅";
    values.set(k, value);
    const perValue = bucket.get(k) ?? new Map<string, number>();
    bucket.set(k, perValue);
    perValue.set(value, (perValue.get(value) ?? 0) + 1);
  }
  const jg = jointCounts.get(group) ?? new Map();
  jointCounts.set(group, jg);
  const jb = jg.get(coarse) ?? new Map<string, Map<string, number>>();
  jg.set(coarse, jb);
  const sorted = [...values.keys()].filter((k) => k !== UA_FAMILY).sort();
  for (const [i, a] of sorted.entries())
    for (const b of sorted.slice(i + 1)) {
      const pair = `${a}|${b}`;
      const v = `${values.get(a)}\u0000${values.get(b)}`;
      const perValue = jb.get(pair) ?? new Map<string, number>();
      jb.set(pair, perValue);
      perValue.set(v, (perValue.get(v) ?? 0) + 1);
    }
}

/**
 * Entropy in bits of a bucket's values. A component first seen after some of the bucket's browsers was missing from
 * them: those browsers count as missing ("∅") too.
 */
const entropy = (values: Map<string, number>, n: number): number => {
  let seen = 0;
  for (const c of values.values()) seen += c;
  const counts = new Map(values);
  if (seen < n) counts.set("∅", (counts.get("∅") ?? 0) + n - seen);
  let h = 0;
  for (const c of counts.values()) h -= (c / n) * Math.log2(c / n);
  return h;
};

/**
 * Components that follow one setting (time zone, languages and date locale all follow where a person lives; screen
 * size and frame follow the display) would be counted several times if their entropies were summed. Components whose
 * normalised mutual information within coarse keys is at least this are clustered; a cluster weighs its joint entropy,
 * shared among its members in proportion to their own entropies.
 */
const CLUSTER_NMI = 0.5;

const groups: Record<string, Record<string, number>> = {};
const pooled = new Map<string, { bits: number; n: number }>();
const clusterNotes: string[] = [];
for (const [group, buckets] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
  const keys = [...keysSeen].filter((k) => k !== UA_FAMILY).sort();
  // Size-weighted average over buckets of H(a), and of H(a, b) for every pair.
  const h = new Map<string, number>();
  const joint = new Map<string, number>();
  let total = 0;
  for (const [coarse, bucket] of buckets) {
    const n = sizes.get(group)?.get(coarse) ?? 0;
    if (n < 2) continue;
    total += n;
    for (const k of keys) h.set(k, (h.get(k) ?? 0) + n * entropy(bucket.get(k) ?? new Map([["∅", n]]), n));
  }
  for (const [coarse, pairs] of jointCounts.get(group) ?? new Map()) {
    const n = sizes.get(group)?.get(coarse) ?? 0;
    if (n < 2) continue;
    for (const [pair, values] of pairs) joint.set(pair, (joint.get(pair) ?? 0) + n * entropy(values, n));
  }
  const H = (k: string) => (h.get(k) ?? 0) / Math.max(1, total);
  const HJ = (a: string, b: string) => (joint.get(`${a}|${b}`) ?? 0) / Math.max(1, total);
  // Union-find over pairs whose normalised mutual information reaches CLUSTER_NMI.
  const parent = new Map(keys.map((k) => [k, k]));
  const find = (k: string): string => (parent.get(k) === k ? k : find(parent.get(k) as string));
  for (const [i, a] of keys.entries())
    for (const b of keys.slice(i + 1)) {
      const lo = Math.min(H(a), H(b));
      if (lo < 0.05) continue;
      if ((H(a) + H(b) - HJ(a, b)) / lo >= CLUSTER_NMI) parent.set(find(a), find(b));
    }
  const clusters = new Map<string, string[]>();
  for (const k of keys) clusters.set(find(k), [...(clusters.get(find(k)) ?? []), k]);
  const out: Record<string, number> = {};
  for (const members of clusters.values()) {
    const sum = members.reduce((a, k) => a + H(k), 0);
    if (sum === 0) continue;
    // The joint entropy of a cluster, bounded below by its largest member: the largest member's entropy plus, for every
    // other member, what it adds to the largest one (pairwise, the estimate a few thousand samples support).
    const top = members.reduce((a, k) => (H(k) > H(a) ? k : a));
    let clusterBits = H(top);
    for (const k of members) if (k !== top) clusterBits += Math.max(0, HJ(top < k ? top : k, top < k ? k : top) - H(top));
    if (members.length > 1) clusterNotes.push(`${group}: ${members.join(" + ")} = ${clusterBits.toFixed(2)} bits`);
    for (const k of members) {
      const bits = Math.round(((clusterBits * H(k)) / sum) * 100) / 100;
      if (bits > 0) out[k] = bits;
      const p = pooled.get(k) ?? { bits: 0, n: 0 };
      pooled.set(k, { bits: p.bits + bits * total, n: p.n + total });
    }
  }
  groups[group] = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
// Any other group (an engine or OS the model does not hold): the components' entropy pooled over every group.
const star: Record<string, number> = {};
for (const [k, { bits, n }] of [...pooled].sort(([a], [b]) => a.localeCompare(b))) {
  const v = Math.round((bits / Math.max(1, n)) * 100) / 100;
  if (v > 0) star[k] = v;
}
groups["*"] = star;

const provenance = `population model seed ${SEED}, ${PEOPLE} people, ${browsers.length} browsers of ${new Set(browsers.map((b) => b.model.id)).size} tuning models (held-out models excluded); FingerprintJS 5.2 components`;
const file = new URL("../src/fingerprint/weights.ts", import.meta.url);
const body = `// Generated by \`npx tsx server/scenarios/derive-weights.ts\`: do not edit by hand (docs/identity.md).
// Each number is a component's entropy in bits between machines that share a coarse key (fingerprint/coarseKey), per
// weight group (engine/OS, fingerprint/weightGroup), over measured values only: how much the component tells one
// machine from another of the same model. "*" pools every group for engines or systems the model does not hold.
// Source: ${provenance}.
export const FINGERPRINT_WEIGHTS: { provenance: string; groups: Record<string, Record<string, number>> } = ${JSON.stringify(
  { provenance, groups },
  null,
  2,
)};
`;
fs.writeFileSync(file, body);
// The repository's formatter writes the object as the rest of the code (the numbers are the same either way).
spawnSync("npx", ["biome", "format", "--write", file.pathname], { stdio: "ignore" });
for (const [group, w] of Object.entries(groups)) {
  const total = Object.values(w).reduce((a, b) => a + b, 0);
  console.log(
    `${group.padEnd(16)} ${total.toFixed(1).padStart(5)} bits  ${Object.entries(w)
      .sort(([, a], [, b]) => b - a)
      .slice(0, 6)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
}
for (const note of clusterNotes) console.log(`  cluster ${note}`);
console.log(`wrote ${file.pathname}`);
