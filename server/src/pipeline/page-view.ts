// The light path of a page view (docs/scaling.md, docs/decisions/page-view-light-path.md): a signed-in user's browser
// sends `access` on every page it opens, so most evaluations of a busy site are views of sessions the store knows.
// Such a view re-checks what can change from one page to the next, and loads nothing else: the checks the
// environment's policies for `access` read (directly, or through a risk they compare), and the families every view
// re-checks whatever the policies say (the IP's network, the account's devices, lists, bot signals). Its verdict is the
// full path's by construction: every check a policy that applies could read is computed as on the full path. The
// checks no policy of the action reads are left out of its snapshot (absent, as on an evaluation older than the check).
import type { Condition } from "@tessera/sdk/contract";
import { checkDefinition, FAMILIES, REGISTERED_CHECKS } from "../checks/index.js";
import type { AnyFactProvider } from "../facts/index.js";
import { RISKS } from "../risks/table.js";
import type { StoredPolicy } from "../wire/policies.js";
import type { EvaluationInput } from "./context.js";
import type { Identity } from "./identity.js";

/**
 * A view of a known session: a page view (`access`) from the browser SDK naming a known user, from the device its own
 * visitor token carries (not recognised by a fingerprint, not a token it carried before), on that user's list, with
 * the device's own fingerprint matched exactly (no drift, no fingerprint new or turning popular). Any other view, and
 * every other action, takes the full path.
 */
export function isKnownSessionView(input: EvaluationInput, identity: Identity): boolean {
  if (input.action !== "access" || input.source !== "client") return false;
  if (input.linkedEvaluationId || input.linkedFingerprintId) return false;
  const token = input.signals.visitor_token;
  const user = identity.user;
  const device = identity.device;
  const fp = identity.fingerprint;
  if (!token || !input.user || !user || identity.userIsNew || identity.claim) return false;
  if (!device || device.isNew || device.recognised || device.retoken || device.wasDetached) return false;
  if (device.row.visitor_token !== token || device.row.user_id !== user.id || device.row.status !== "attached") return false;
  if (!fp || fp.isNew || fp.drift || fp.becamePopular || fp.confidence !== 1) return false;
  return device.row.fingerprint_id === fp.row.id;
}

/**
 * The families every view of a known session re-checks, whatever the policies read: the IP's network, the account's
 * devices, the pace (velocity: on PostgreSQL asking it is what counts the view on the velocity counters, which later
 * logins read: store/history.ts), lists and bot signals, and the identity family (identity_verified and the signed-in browser decide what the
 * evaluation lets in and trusts: pipeline/evaluate.ts, challenges/budgets.ts; its only fact is the signed-in browser,
 * which the pipeline loads anyway).
 */
const ALWAYS: readonly (keyof typeof FAMILIES)[] = ["identity", "network", "sharing", "velocity", "lists", "bot"];
/** Risks a pipeline step reads whatever the policies say (webhooks/account-sharing.ts signals a raised one). */
const ALWAYS_RISKS: readonly string[] = ["account_sharing"];

function collect(cond: Condition, out: Set<string>): void {
  if ("all" in cond) for (const c of cond.all) collect(c, out);
  else if ("any" in cond) for (const c of cond.any) collect(c, out);
  else if ("not" in cond) collect(cond.not, out);
  else {
    const risk = /^risk\.([a-z_]+)\./.exec(cond.check);
    if (risk) {
      const def = RISKS.find((r) => r.name === risk[1]);
      for (const w of def?.weights ?? []) out.add(w.check);
      if (def?.measuredWhen) collect(def.measuredWhen, out);
    } else if (checkDefinition(cond.check)) out.add(cond.check);
  }
}

export interface LightChecks {
  /** The checks computed: those the action's policies read, and the families always re-checked. */
  checks: ReadonlySet<string>;
  /** The fact providers those checks need. */
  facts: readonly AnyFactProvider[];
}

/** By the cached policy list they were derived from (policies/index.ts keeps one array until the policies change). */
const derived = new WeakMap<readonly StoredPolicy[], Map<string, LightChecks>>();

/** What a view of a known session computes under these policies: the checks they read for `action`, and their facts. */
export function lightChecks(policies: readonly StoredPolicy[], action: string): LightChecks {
  let byAction = derived.get(policies);
  if (!byAction) {
    byAction = new Map();
    derived.set(policies, byAction);
  }
  const cached = byAction.get(action);
  if (cached) return cached;
  const names = new Set<string>(ALWAYS.flatMap((f) => FAMILIES[f].map((c) => c.name)));
  for (const r of ALWAYS_RISKS) collect({ check: `risk.${r}.score`, op: "exists" }, names);
  for (const p of policies) {
    if (!p.enabled) continue;
    if (p.actions.length > 0 && !p.actions.includes(action)) continue;
    collect(p.conditions, names);
  }
  const facts = [...new Set(REGISTERED_CHECKS.filter((c) => names.has(c.name)).flatMap((c) => c.needs))];
  const out: LightChecks = { checks: names, facts };
  byAction.set(action, out);
  return out;
}
