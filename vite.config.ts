// Root Vite/Vitest config: unit and integration tests of every workspace (e2e has its own config in e2e/).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["sdk/src/**/*.test.ts", "server/src/**/*.test.ts", "server/test/**/*.test.ts", "challenge-app/src/**/*.test.{ts,tsx}"],
    exclude: ["**/node_modules/**", "**/dist/**", "e2e/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["server/test/global-setup.ts"],
  },
});
