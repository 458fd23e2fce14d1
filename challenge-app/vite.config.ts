// Builds the hosted challenge app into challenge-app/dist, served by the server at /challenge/ (docs/challenge-app.md).
import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defaultClientConditions, defineConfig } from "vite";
import { precompress } from "../scripts/vite-precompress.js";
import { pureContract } from "../scripts/vite-pure-contract.js";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/challenge/",
  plugins: [pureContract(), preact(), precompress()],
  // The contract from its TypeScript sources (the "@tessera/source" export condition of @tessera/sdk), never a stale build.
  resolve: { conditions: ["@tessera/source", ...defaultClientConditions] },
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
