// The audit log's before/after as a list of the fields that changed (screens/audit.tsx): an operator reads "enabled:
// false → true" instead of comparing two JSON documents by eye. Pure, so its test reads it alone (diff.test.ts).

export interface FieldChange {
  /** Where the field is: `enabled`, `challenge.channels`, `conditions.all.0.value`. */
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** A list of plain values (policy actions, webhook events, origins) reads best whole: ["login"] → ["login", "signup"]. */
const isFlatList = (v: unknown) => Array.isArray(v) && v.every((x) => x === null || typeof x !== "object");
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Deeper than this, a value is compared whole (the audit log's objects are a few levels deep). */
const MAX_DEPTH = 8;

/**
 * The fields that differ between `before` and `after`, in the order they appear (after's first, then the removed). A
 * creation (nothing before) lists each field of the new object as added, a deletion each field of the old as removed.
 */
export function fieldDiff(before: unknown, after: unknown, path = "", depth = 0): FieldChange[] {
  if (depth === 0 && before === undefined && isObject(after)) return fieldDiff({}, after, path, depth);
  if (depth === 0 && after === undefined && isObject(before)) return fieldDiff(before, {}, path, depth);
  if (same(before, after)) return [];
  const descend =
    depth < MAX_DEPTH &&
    ((isObject(before) && isObject(after)) || (Array.isArray(before) && Array.isArray(after) && !isFlatList(before) && !isFlatList(after)));
  if (!descend) {
    if (before === undefined) return [{ path, kind: "added", after }];
    if (after === undefined) return [{ path, kind: "removed", before }];
    return [{ path, kind: "changed", before, after }];
  }
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
  return keys.flatMap((k) => fieldDiff(b[k], a[k], path ? `${path}.${k}` : k, depth + 1));
}

/** A value as one line of a diff: strings as they are, the rest as JSON. */
export function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
