// A Vite plugin shared by the browser bundles (challenge app, console): the wire contract declares every schema at
// module top level with zod/mini calls, which a bundler must assume have side effects, so every schema of the
// contract would ship. Annotating those calls pure (in the bundle only; the source is untouched) lets the bundler
// keep just the schemas an app uses.
import type { Plugin } from "vite";

export function pureContract(): Plugin {
  return {
    name: "tessera-pure-contract",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]sdk[\\/]src[\\/]contract[\\/][^\\/]+\.ts$/.test(id)) return null;
      return { code: code.replace(/(^|[=(,:[]\s*)z\./gm, "$1/* @__PURE__ */ z."), map: null };
    },
  };
}
