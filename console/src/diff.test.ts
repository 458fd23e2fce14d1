// The audit log's field-level diff (diff.ts): what changed, where, and what was added or removed.
import { describe, expect, it } from "vitest";
import { fieldDiff, shown } from "./diff.js";

describe("the audit log's diff", () => {
  it("names each changed field by its path, with its value before and after", () => {
    const before = {
      id: "pol_1",
      name: "Deny bots",
      enabled: false,
      priority: 100,
      challenge: { type: "account_takeover", channels: ["email"] },
    };
    const after = {
      id: "pol_1",
      name: "Deny bots",
      enabled: true,
      priority: 100,
      challenge: { type: "account_takeover", channels: ["email", "text"] },
    };
    expect(fieldDiff(before, after)).toEqual([
      { path: "enabled", kind: "changed", before: false, after: true },
      { path: "challenge.channels", kind: "changed", before: ["email"], after: ["email", "text"] },
    ]);
  });

  it("says which fields were added and removed, and walks into lists of objects", () => {
    const before = { conditions: { all: [{ check: "user_id", op: "eq", value: "nobody" }] }, description: "old" };
    const after = { conditions: { all: [{ check: "user_id", op: "eq", value: "bob" }] }, color: "#0a7f5a" };
    expect(fieldDiff(before, after)).toEqual([
      { path: "conditions.all.0.value", kind: "changed", before: "nobody", after: "bob" },
      { path: "color", kind: "added", after: "#0a7f5a" },
      { path: "description", kind: "removed", before: "old" },
    ]);
  });

  it("a creation lists every field as added; a deletion every field as removed; nothing changed, nothing listed", () => {
    expect(fieldDiff(undefined, { a: 1, b: "x" })).toEqual([
      { path: "a", kind: "added", after: 1 },
      { path: "b", kind: "added", after: "x" },
    ]);
    expect(fieldDiff({ a: 1, b: { c: 2 } }, undefined)).toEqual([
      { path: "a", kind: "removed", before: 1 },
      { path: "b", kind: "removed", before: { c: 2 } },
    ]);
    expect(fieldDiff({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
  });

  it("shows strings as they are and anything else as JSON", () => {
    expect([shown("on"), shown(3), shown(null), shown(["a"])]).toEqual(["on", "3", "null", '["a"]']);
  });
});
