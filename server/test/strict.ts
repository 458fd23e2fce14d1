// Strict parsing of answers in tests: the contract's objects strip keys they do not declare (which is what the
// server's serialiser must do), so a test parsing an answer with them would never see a leaked field. `strict(X)`
// parses with X and then fails on any key of the input that X's output does not carry: an extra key anywhere in the
// answer (a code hash, a webhook secret, a column added to a row) fails the test.
import type * as z from "zod/mini";

/** Paths of the input's keys (at any depth) that the parsed output dropped. */
export function droppedKeys(input: unknown, output: unknown, at = "$"): string[] {
  if (Array.isArray(input)) {
    if (!Array.isArray(output)) return [];
    return input.flatMap((v, i) => droppedKeys(v, output[i], `${at}[${i}]`));
  }
  if (!input || typeof input !== "object" || !output || typeof output !== "object") return [];
  const out = output as Record<string, unknown>;
  return Object.entries(input as Record<string, unknown>).flatMap(([k, v]) => {
    if (v === undefined) return [];
    if (!Object.hasOwn(out, k)) return [`${at}.${k}`];
    return droppedKeys(v, out[k], `${at}.${k}`);
  });
}

const cache = new WeakMap<object, { parse(value: unknown): unknown }>();

/** The schema, parsing strictly: `strict(Evaluation).parse(r.json())` throws on a key Evaluation does not declare. */
export function strict<T extends z.ZodMiniType>(schema: T): { parse(value: unknown): z.output<T> } {
  let s = cache.get(schema);
  if (!s) {
    s = {
      parse(value: unknown) {
        const parsed = schema.parse(value);
        const extra = droppedKeys(value, parsed);
        if (extra.length) throw new Error(`keys the contract does not declare: ${extra.join(", ")}`);
        return parsed;
      },
    };
    cache.set(schema, s);
  }
  return s as { parse(value: unknown): z.output<T> };
}
