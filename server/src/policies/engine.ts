// The policy step (docs/policies.md): the enabled policy of highest priority whose actions include this one and whose
// conditions hold decides the verdict; none matching → allow. Also names the reasons: what the comparisons that made the
// winning policy true say, each check's own reason (checks/define.ts, Reason), a risk's indicators, a list's id.
import type { Comparison, Risk } from "@tessera/sdk/contract";
import { checkReason } from "../checks/index.js";
import type { StoredPolicy } from "../wire/policies.js";
import { type ConditionContext, evaluateCondition } from "./conditions.js";

export interface PolicyMatch {
  policy: StoredPolicy;
  reasons: string[];
}

function reasonsOf(matched: Comparison[], risks: Risk[], ctx: ConditionContext): string[] {
  const out: string[] = [];
  const add = (r: string) => {
    if (!out.includes(r)) out.push(r);
  };
  for (const c of matched) {
    const risk = /^risk\.([a-z_]+)\./.exec(c.check);
    if (risk) {
      for (const i of risks.find((r) => r.name === risk[1])?.indicators ?? []) add(i);
    } else if (c.op === "in_list" || c.op === "not_in_list") {
      const ids = Array.isArray(c.value) ? c.value : [c.value];
      for (const id of ids) add(`${c.op === "in_list" ? "in_list" : "not_in_list"}:${String(id)}`);
    } else {
      // A comparison that holds because something is absent (is_new_user eq false) or merely known explains nothing.
      const reason = checkReason(c.check, c.op, ctx.checks[c.check]);
      if (reason) add(reason);
    }
  }
  return out;
}

export function selectPolicy(policies: StoredPolicy[], action: string, ctx: ConditionContext, risks: Risk[]): PolicyMatch | undefined {
  // `policies` come highest priority first (ties: oldest first), so the first match wins.
  for (const policy of policies) {
    if (!policy.enabled) continue;
    if (policy.actions.length > 0 && !policy.actions.includes(action)) continue;
    const matched: Comparison[] = [];
    if (evaluateCondition(ctx, policy.conditions, matched)) return { policy, reasons: reasonsOf(matched, risks, ctx) };
  }
  return undefined;
}
