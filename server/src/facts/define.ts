// A fact provider (docs/detection.md, "How to add a check"): one kind of what the store knows about a request's past
// (velocity, the user's devices, the browser's places, the familiarity ledger's answers, …), loaded once per evaluation
// for the checks that need it. Collecting and judging never mix: a provider reads, a check (checks/define.ts) judges,
// and declares the providers it reads in its `needs`; the pipeline loads only the facts some registered check, or the
// pipeline itself, needs (facts/index.ts, loadFacts). SQL stays in server/src/store: a provider calls repositories.
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import type { Repos } from "../store/repos.js";
import type { ScalarsBatch } from "./scalars.js";

/** What a provider loads from. */
export interface FactRequest {
  input: EvaluationInput;
  identity: Identity;
  signals: SignalSet;
  repos: Repos;
  /**
   * The evaluation's one statement of numbers (store/history.ts, HistoryRepo.scalars): velocity, login attempts, the
   * signed-in browser and the familiarity ledger each ask their part of it, and it is sent once every provider has.
   */
  scalars: ScalarsBatch;
}

/** A familiarity dimension: what a trusted evaluation records in its user's ledger (facts/familiarity.ts). */
export interface Dimension {
  readonly name: string;
  /** The value this request records once trusted (undefined: none). */
  record(r: Pick<FactRequest, "input" | "identity" | "signals">): string | undefined;
}

export interface FactProvider<N extends string = string, T = unknown> {
  /** The key of its fact in a check's `facts`; unique among the providers. */
  readonly name: N;
  /**
   * Loads the fact. It asks the store before its first `await` (every provider is started before the shared
   * statement is sent, and the reads of one evaluation go out together: store/user-lists.ts).
   */
  load(r: FactRequest): Promise<T>;
  /** The ledger dimensions its answers read, which trusted evaluations must therefore record (facts/familiarity.ts). */
  readonly dimensions?: readonly Dimension[];
}

export const defineFacts = <const N extends string, T>(provider: FactProvider<N, T>): FactProvider<N, T> => provider;

/** Any provider, whatever it loads. */
// biome-ignore lint/suspicious/noExplicitAny: a provider of any fact (its type is read back by FactOf)
export type AnyFactProvider = FactProvider<string, any>;

export type FactOf<P> = P extends FactProvider<string, infer T> ? T : never;

/** The facts of a list of providers, by their names: what a check that needs them reads. */
export type FactsOf<F extends readonly AnyFactProvider[]> = { [P in F[number] as P["name"]]: FactOf<P> };
