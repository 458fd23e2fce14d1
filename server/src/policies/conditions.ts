// Evaluation of a policy's condition tree (docs/policies.md): `all` / `any` / `not` nodes over `{ check, op, value }`.
// `{ "all": [] }` is true and `{ "any": [] }` false. A missing check compares as absent: only `exists`, `ne`,
// `not_in` and `not_in_list` can be true of it.
import type { ChecksSnapshot, Comparison, Condition } from "@tessera/sdk/contract";

export interface ConditionContext {
  checks: ChecksSnapshot;
  /** list id → names of the checks whose current value the list holds (e.g. "blocked" → {"ip"}). */
  lists: Map<string, Set<string>>;
}

type Value = ChecksSnapshot[string] | undefined;

export function checkValue(ctx: ConditionContext, check: string): Value {
  return ctx.checks[check];
}

function inList(ctx: ConditionContext, check: string, value: Comparison["value"]): boolean {
  const ids = Array.isArray(value) ? value.map(String) : value == null ? [] : [String(value)];
  // `in_list` on the catalogue's own `in_list` check: is the request in any of these lists at all.
  if (check === "in_list") return ids.some((id) => ctx.lists.has(id));
  return ids.some((id) => ctx.lists.get(id)?.has(check) ?? false);
}

export function compare(ctx: ConditionContext, c: Comparison): boolean {
  const v = checkValue(ctx, c.check);
  const want = c.value;
  switch (c.op) {
    case "exists":
      return (v !== undefined && v !== null) === (want === undefined ? true : want === true);
    case "eq":
      return Array.isArray(v) ? v.includes(String(want)) : v === want;
    case "ne":
      return Array.isArray(v) ? !v.includes(String(want)) : v !== want;
    case "gt":
      return typeof v === "number" && typeof want === "number" && v > want;
    case "gte":
      return typeof v === "number" && typeof want === "number" && v >= want;
    case "lt":
      return typeof v === "number" && typeof want === "number" && v < want;
    case "lte":
      return typeof v === "number" && typeof want === "number" && v <= want;
    case "in":
    case "not_in": {
      const set = Array.isArray(want) ? want : [want];
      const hit = Array.isArray(v) ? v.some((x) => set.includes(x)) : v !== undefined && v !== null && (set as unknown[]).includes(v);
      return c.op === "in" ? hit : !hit;
    }
    case "in_list":
      return inList(ctx, c.check, want);
    case "not_in_list":
      return !inList(ctx, c.check, want);
  }
}

/** Evaluates the tree; `matched` collects the comparisons that were true on the path that made it true. */
export function evaluateCondition(ctx: ConditionContext, cond: Condition, matched?: Comparison[]): boolean {
  if ("all" in cond) {
    // Held apart until every branch holds; nothing to hold when no one collects (under a `not`).
    const local: Comparison[] | undefined = matched && [];
    for (const c of cond.all) if (!evaluateCondition(ctx, c, local)) return false;
    if (matched && local) for (const c of local) matched.push(c);
    return true;
  }
  if ("any" in cond) {
    let any = false;
    for (const c of cond.any) if (evaluateCondition(ctx, c, matched)) any = true;
    return any;
  }
  if ("not" in cond) return !evaluateCondition(ctx, cond.not);
  const ok = compare(ctx, cond);
  if (ok) matched?.push(cond);
  return ok;
}
