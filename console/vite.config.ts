// Builds the console into console/dist, served by the server at /console/ (docs/console.md). Same setup as the challenge
// app (challenge-app/vite.config.ts): nothing inline (strict CSP), the contract's schemas tree-shaken.
import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defaultClientConditions, defineConfig } from "vite";
import { precompress } from "../scripts/vite-precompress.js";
import { pureContract } from "../scripts/vite-pure-contract.js";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  plugins: [pureContract(), preact(), precompress()],
  // The contract from its TypeScript sources (the "@tessera/source" export condition of @tessera/sdk), never a stale build.
  resolve: { conditions: ["@tessera/source", ...defaultClientConditions] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2020",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rolldownOptions: { treeshake: { propertyReadSideEffects: false } },
  },
});
