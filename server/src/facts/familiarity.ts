// Facts: the familiarity ledger's answers (docs/detection.md, "How to add a check"): was the user ever let in with this
// request's country, provider, time zone, language, address, network, …? A dimension names what a trusted evaluation
// records (`record`), and a question what a check asks of it; both are declared with the checks that read them
// (checks/families/familiarity.ts). The pipeline records the values of every dimension some registered check reads
// (recordedValues: `evaluations.familiar`), and the store writes them to the ledger when the evaluation becomes trusted
// (store/familiarity.ts), so a new "is new X" check is a dimension and a check definition: no column, no migration.
// Every question is a part of the history's statement of numbers (store/history.ts): one round trip for all of them.
import type { Familiar } from "../store/familiarity.js";
import { type Dimension, defineFacts, type FactProvider, type FactRequest } from "./define.js";

export type { Familiar } from "../store/familiarity.js";
export type { Dimension } from "./define.js";

/** A ledger dimension: its name, and the value a request records once trusted. */
export function dimension(name: string, record: Dimension["record"]): Dimension {
  return { name, record };
}

/**
 * A question to the user's ledger, loaded as the fact `name`: `ask` gives the (dimension, value) pairs of this request
 * that count (any of them seen is familiar), or undefined when the question is not asked (the fact is undefined then).
 * Without a user nothing was ever let in: { seen: false, any: false }.
 */
export function familiarity<const N extends string>(
  name: N,
  dimensions: readonly Dimension[],
  ask: (r: FactRequest) => ReadonlyArray<readonly [Dimension, string | undefined]> | undefined,
): FactProvider<N, Familiar | undefined> {
  return defineFacts({
    name,
    dimensions,
    load: async (r) => {
      const pairs = ask(r);
      if (!pairs) return undefined;
      const user = r.identity.user?.id;
      const known = pairs.filter((p): p is readonly [Dimension, string] => p[1] !== undefined).map(([d, v]) => [d.name, v] as const);
      if (!user || known.length === 0) return { seen: false, any: false };
      return r.scalars.familiar(user, { pairs: known });
    },
  });
}

/** The common question, named after its dimension: this request's own value of it, asked when there is one. */
export function familiarityOf<const N extends string>(d: Dimension & { name: N }): FactProvider<N, Familiar | undefined> {
  return familiarity(d.name, [d], (r) => {
    const value = d.record(r);
    return value === undefined ? undefined : [[d, value]];
  });
}

/** The dimensions the providers read, each once. */
export function dimensionsOf(providers: readonly FactProvider[]): Dimension[] {
  const out = new Map<string, Dimension>();
  for (const p of providers) for (const d of p.dimensions ?? []) out.set(d.name, d);
  return [...out.values()];
}

/** What this request records in the ledger once trusted, by dimension (`evaluations.familiar`). */
export function recordedValues(
  dimensions: readonly Dimension[],
  r: Pick<FactRequest, "input" | "identity" | "signals">,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of dimensions) {
    const v = d.record(r);
    if (v !== undefined && v !== "") out[d.name] = v;
  }
  return out;
}
