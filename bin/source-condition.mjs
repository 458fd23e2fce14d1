// Module resolution hook (node:module register): adds the "@tessera/source" export condition, under which
// @tessera/sdk resolves to its TypeScript sources in this repository instead of its built JS.
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, "@tessera/source"] });
}
