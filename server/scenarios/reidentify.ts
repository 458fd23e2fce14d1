// Fingerprint re-identification measured in-process with the server's own matcher (coarse-key index + weighted
// similarity), at a scale the HTTP suite would take minutes for: N distinct synthetic devices are registered one by
// one (a match to an earlier device is a merge), then each comes back after a minor update (it must match itself).
import { bestMatch, coarseKey, exactHash, similarity } from "../src/fingerprint/index.js";
import { makeDevice, updateDevice } from "./devices.js";

export function measureReidentification(n: number): { devices: number; reidentified: number; merges: number; meanConfidence: number } {
  const index = new Map<string, { id: number; components: string }[]>();
  const exact = new Map<string, number>();
  let merges = 0;
  const devices = Array.from({ length: n }, (_, i) => makeDevice(1_000_000 + i, "Europe/Paris"));
  for (const [i, d] of devices.entries()) {
    const hash = exactHash(d.components);
    const key = coarseKey(d.components);
    const bucket = index.get(key) ?? [];
    if (exact.has(hash) || bestMatch(d.components, bucket.slice(-100))) {
      merges++;
      continue;
    }
    exact.set(hash, i);
    bucket.push({ id: i, components: JSON.stringify(d.components) });
    index.set(key, bucket);
  }
  let reidentified = 0;
  let confidence = 0;
  for (const [i, d] of devices.entries()) {
    const u = updateDevice(d).components;
    const m = bestMatch(u, (index.get(coarseKey(u)) ?? []).slice(-100));
    if (m?.candidate.id === i) {
      reidentified++;
      confidence += m.confidence;
    }
  }
  void similarity;
  return { devices: n, reidentified, merges, meanConfidence: reidentified ? confidence / reidentified : 0 };
}
