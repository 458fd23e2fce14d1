// Root Vite/Vitest config: unit and integration tests of every workspace (e2e has its own config in e2e/).
import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// In this repository @tessera/sdk resolves to its TypeScript sources (the "@tessera/source" export condition), so
// tests never run a stale sdk/dist; an installed package resolves to the built JS.
const SOURCE = "@tessera/source";

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
  test: {
    include: [
      "sdk/src/**/*.test.ts",
      "server/src/**/*.test.ts",
      "server/test/**/*.test.ts",
      "challenge-app/src/**/*.test.{ts,tsx}",
      "console/src/**/*.test.{ts,tsx}",
    ],
    exclude: ["**/node_modules/**", "**/dist/**", "e2e/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["server/test/global-setup.ts"],
    // Every answer written by a compiled serializer is checked against the zod path's bytes (server/src/serialize.ts).
    env: { TESSERA_SERIALIZER_CHECK: "1" },
  },
});
