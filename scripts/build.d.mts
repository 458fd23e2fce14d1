// Types of scripts/build.mjs for the TypeScript that imports it (the test helpers).
export interface Workspace {
  name: string;
  folder: string;
  dir: string;
  deps: Workspace[];
}
export const ROOT: string;
export class BuildError extends Error {}
export function buildableWorkspaces(): Workspace[];
export function inputsHash(ws: Workspace): string;
export function buildInputs(ws: Workspace): { inputs: string; files: Record<string, string> };
export function buildState(ws: Workspace): "current" | "stale" | "missing";
/** "current", "missing", or "stale: <the files changed since the build>". */
export function describeState(ws: Workspace): string;
export function canBuild(): boolean;
export function buildWorkspace(ws: Workspace, log?: (msg: string) => void, opts?: { quiet?: boolean }): void;
export function ensureBuilt(opts?: {
  only?: (w: Workspace) => boolean;
  force?: boolean;
  log?: (msg: string) => void;
  quiet?: boolean;
}): string[];
export function isBundle(w: Workspace): boolean;
