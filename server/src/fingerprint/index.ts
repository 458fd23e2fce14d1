// Server-side fingerprint ids from FingerprintJS components (SPEC.md 6). The client's own hash is never trusted.
// Walking-skeleton version: exact matching only (identical components → same id, confidence 1).
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
