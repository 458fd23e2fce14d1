// Fact: the customer's lists (docs/detection.md) that hold one of this request's values (its user id, IP, email and
// its domain, phone, fingerprint, device, IP country): read for the in_list check and for policies' in_list comparisons
// (listMemberships, pipeline/decide.ts).
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import { defineFacts } from "./define.js";

/** The values of this request that lists may hold, by the check that names them. */
export function listValues(input: EvaluationInput, identity: Identity, signals: SignalSet): Record<string, string | undefined> {
  return {
    user_id: input.user,
    ip: input.ip,
    email: signals.email?.address,
    email_domain: signals.email?.domain,
    phone: input.phone,
    fingerprint_id: identity.fingerprint?.row.id,
    device_id: identity.device?.row.id,
    ip_country: signals.geolocation?.country_code,
  };
}

export const lists = defineFacts({
  name: "lists",
  load: ({ input, identity, signals, repos }) =>
    repos.lists.membership(
      input.env.id,
      Object.values(listValues(input, identity, signals)).filter((v): v is string => !!v),
      input.at,
    ),
});

/** (list, value) memberships keyed for the policy engine's in_list: list id → check name → true. */
export function listMemberships(
  input: EvaluationInput,
  identity: Identity,
  signals: SignalSet,
  memberships: ReadonlyArray<{ list_id: string; value: string }>,
): Map<string, Set<string>> {
  const values = listValues(input, identity, signals);
  const byValue = new Map<string, string[]>();
  for (const [check, v] of Object.entries(values))
    if (v) byValue.set(v.trim().toLowerCase(), [...(byValue.get(v.trim().toLowerCase()) ?? []), check]);
  const out = new Map<string, Set<string>>();
  for (const m of memberships) {
    const checks = byValue.get(m.value.toLowerCase()) ?? [];
    const set = out.get(m.list_id) ?? new Set<string>();
    for (const c of checks) set.add(c);
    out.set(m.list_id, set);
  }
  return out;
}
