// Builds the server to JavaScript in server/dist for production (docs/operations.md: no TypeScript compiler, tsx or Vite at
// run time). One output file per source file, in the same folders (preserveModules), so that paths a module builds
// from its own location (new URL("../../data/", import.meta.url)) point where they do in src. The shared contract
// (@tessera/sdk, TypeScript sources) is compiled in; every npm dependency stays an import, installed by npm ci.
import fs from "node:fs";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { defaultServerConditions, defineConfig, type Plugin } from "vite";
import pkg from "./package.json" with { type: "json" };

const dependencies = Object.keys(pkg.dependencies).filter((d) => d !== "@tessera/sdk");
const external = (id: string) =>
  id.startsWith("node:") || builtinModules.includes(id) || dependencies.some((d) => id === d || id.startsWith(`${d}/`));

/** The demo site's static files (routes/demo.ts reads them beside its compiled module, in dist/demo). */
function copyDemoFiles(): Plugin {
  return {
    name: "tessera-copy-demo-files",
    writeBundle() {
      const from = fileURLToPath(new URL("./src/demo/", import.meta.url));
      const to = fileURLToPath(new URL("./dist/demo/", import.meta.url));
      fs.mkdirSync(to, { recursive: true });
      for (const f of fs.readdirSync(from)) if (/\.(html|css|js)$/.test(f)) fs.copyFileSync(from + f, to + f);
    },
  };
}

export default defineConfig({
  plugins: [copyDemoFiles()],
  root: fileURLToPath(new URL(".", import.meta.url)),
  logLevel: "warn",
  build: {
    ssr: true,
    outDir: "dist",
    emptyOutDir: true,
    target: "node20",
    minify: false,
    sourcemap: true,
    rollupOptions: {
      input: { cli: "src/cli.ts" },
      external,
      output: { format: "es", preserveModules: true, preserveModulesRoot: "src", entryFileNames: "[name].js" },
    },
  },
  // The contract is compiled in from its TypeScript sources (the "@tessera/source" export condition), not its build.
  ssr: { noExternal: ["@tessera/sdk"], resolve: { conditions: ["@tessera/source", ...defaultServerConditions] } },
});
