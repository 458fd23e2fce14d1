// Two builds of the SDK from one source (docs/sdk.md), chosen by `--mode`:
// - default: the script-tag IIFE `dist/tessera.js` (+ map) that sets `window.Tessera`, everything bundled,
//   served by the server at /sdk/v3/tessera.js; budget ≤ 30 KB gzipped including FingerprintJS;
// - `esm`: ES modules for bundlers in `dist/esm/` (browser SDK, backend client, contract, and the compatibility layer's
//   two clients), dependencies left as imports; the types come from `tsc -p tsconfig.build.json`;
// - `compat`: the compatibility layer's script-tag IIFE `dist/rupt.js` that sets `window.Rupt` (docs/migrating.md),
//   served at /sdk/v3/rupt.js: the same SDK under the hosted service's names.
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import { precompress } from "../scripts/vite-precompress.js";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// The contract declares every wire schema at top level (`export const X = z.object(…)`). A bundler cannot
// prove those initialisers free of side effects (chained `.check()`, spreads, property reads), so the browser
// bundle would carry every schema (policies, webhooks, …). Wrapping each top-level initialiser of a contract
// module in a pure-annotated arrow call (same value, same evaluation order) lets unused schemas drop out.
function pureContractSchemas(): Plugin {
  return {
    name: "tessera-pure-contract-schemas",
    transform(code, id) {
      if (!/[\\/]src[\\/]contract[\\/][^\\/]+\.ts$/.test(id)) return null;
      type Node = { type: string; start: number; end: number; declaration?: Node | null; declarations?: { init?: Node | null }[] };
      const program = this.parse(code) as unknown as { body: Node[] };
      const inits: Node[] = [];
      for (const statement of program.body) {
        const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
        if (declaration?.type !== "VariableDeclaration") continue;
        for (const d of declaration.declarations ?? []) if (d.init && d.init.type !== "Literal") inits.push(d.init);
      }
      let out = code;
      for (const init of inits.sort((a, b) => b.start - a.start)) {
        out = `${out.slice(0, init.start)}/* @__PURE__ */ (() => (${out.slice(init.start, init.end)}))()${out.slice(init.end)}`;
      }
      return { code: out, map: null };
    },
  };
}

/** The script-tag IIFE of `entry`, exposed as the global `name` (Tessera's own SDK, or the compatibility layer's). */
function scriptBuild(entry: string, name: string, fileName: string) {
  return {
    // <file>.br and .gz beside the file, served by content negotiation (server/src/routes/sdk-assets.ts).
    plugins: [pureContractSchemas(), precompress()],
    build: {
      outDir: "dist",
      // The ESM build lives in dist/esm, and each script is built alone: keep the others when rebuilding one.
      emptyOutDir: false,
      sourcemap: true,
      minify: true,
      // ES2022 (Chrome 94+, Firefox 93+, Safari 15.4+): untranspiled class fields save ~0.7 KB gzipped against
      // ES2020. No eval, no Function(), no inline styles are emitted either way.
      target: "es2022",
      lib: { entry: src(entry), name, formats: ["iife" as const], fileName: () => fileName },
    },
  };
}

export default defineConfig(({ mode }) =>
  mode === "compat"
    ? scriptBuild("compat/global.ts", "Rupt", "rupt.js")
    : mode === "esm"
      ? {
          build: {
            outDir: "dist/esm",
            emptyOutDir: true,
            sourcemap: true,
            minify: false,
            target: "es2022",
            lib: {
              entry: {
                index: src("browser/index.ts"),
                node: src("node/index.ts"),
                contract: src("contract/index.ts"),
                "compat-client": src("compat/client.ts"),
                "compat-api": src("compat/api.ts"),
              },
              formats: ["es"],
            },
            rolldownOptions: { external: [/^@fingerprintjs\//, /^ky($|\/)/, /^zod($|\/)/, /^node:/] },
          },
        }
      : scriptBuild("browser/global.ts", "Tessera", "tessera.js"),
);
