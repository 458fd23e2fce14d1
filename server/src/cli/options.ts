// What the command files of the CLI share: a command's shape (one row of cli.ts's table), the two errors a command
// throws (cli.ts's main turns them into one line and an exit code), and the parsers of the options several commands take.
import type { ParseArgsConfig } from "node:util";
import { ENVIRONMENTS, type Environment } from "@tessera/sdk/contract";
import type { Config } from "../config.js";
import type { Services } from "../services.js";

/** A mistake of the caller: one line on stderr, exit code 2. */
export class UsageError extends Error {}
/** A change the store refuses as it stands (the last administrator): one line saying why, exit code 1. */
export class Refused extends Error {}

export type Options = NonNullable<ParseArgsConfig["options"]>;
/** An option's value as parseArgs gives it (a list for a repeatable option). */
export type Value = string | boolean | string[] | undefined;
export type Values = Record<string, Value>;

export interface Invocation {
  values: Values;
  positionals: string[];
  config: Config;
}

export type Command = {
  /** What follows `tessera`: "serve", "projects create". */
  name: string;
  /** Positionals and options, as the help shows them after the name. */
  usage: string;
  summary: string;
  /** More lines for `--help` (options, examples). */
  details?: string;
  options?: Options;
} & (
  | /** Runs with the store open (one-off commands: no background workers). Answers the exit code. */
  {
      run: (services: Services, args: Invocation) => Promise<number>;
    } /** Manages the store itself (serve, migrate); -1 keeps the process running. */
  | { start: (args: Invocation) => Promise<number> }
);

export const json = { json: { type: "boolean" } } as const;

export function envOption(v: Value): Environment {
  if (typeof v !== "string" || !(ENVIRONMENTS as readonly string[]).includes(v))
    throw new UsageError(`--env must be one of ${ENVIRONMENTS.join(", ")}`);
  return v as Environment;
}

export function projectId(positionals: string[]): string {
  const id = positionals[0];
  if (!id) throw new UsageError("PROJECT_ID is missing");
  return id;
}

export const str = (v: Value): string | undefined => (typeof v === "string" ? v : undefined);
export const noProject = (id: string) => new UsageError(`no project ${id} (tessera projects list shows them)`);
