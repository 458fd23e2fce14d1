// Builds the hosted challenge app into challenge-app/dist, served by the server at /challenge/ (SPEC.md 11).
import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defineConfig, type Plugin } from "vite";

/**
 * The wire contract declares every schema at module top level with zod/mini calls, which a bundler must assume
 * have side effects, so every schema of the contract would ship. Annotating those calls pure (in the bundle only;
 * the source is untouched) lets it keep just the schemas the app uses: ChallengeView, Device, ErrorBody.
 */
function pureContract(): Plugin {
  return {
    name: "tessera-pure-contract",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]sdk[\\/]src[\\/]contract[\\/][^\\/]+\.ts$/.test(id)) return null;
      return { code: code.replace(/(^|[=(,:[]\s*)z\./gm, "$1/* @__PURE__ */ z."), map: null };
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/challenge/",
  plugins: [pureContract(), preact()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2020",
    // Nothing inline: the server's CSP allows scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // Reading a property has no side effect in this code base (no getters with effects); without this, a schema
    // built from another one's field (`policyFields.actions`) keeps the whole policy contract in the bundle.
    rolldownOptions: { treeshake: { propertyReadSideEffects: false } },
  },
});
