// Root Vite/Vitest config: unit and integration tests of every workspace (e2e has its own config in e2e/), in two
// projects that `npm test` runs as two steps (scripts/test.mjs):
// - "unit": tests that run in the test's own process (the app through inject, stores, units);
// - "process": tests that start the real server or the CLI as child processes (server/test/server-process.ts) or
//   build the bundles; slower, and given more time on a loaded machine.
// `npx vitest run <file>` runs a file in whichever project holds it; `--project unit` runs one project.
import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// In this repository @tessera/sdk resolves to its TypeScript sources (the "@tessera/source" export condition), so
// tests never run a stale sdk/dist; an installed package resolves to the built JS.
const SOURCE = "@tessera/source";

const TESTS = [
  "sdk/src/**/*.test.ts",
  "server/src/**/*.test.ts",
  "server/test/**/*.test.ts",
  "challenge-app/src/**/*.test.{ts,tsx}",
  "console/src/**/*.test.{ts,tsx}",
];

/**
 * The test files that start child processes: the real server, the CLI, a migration killed mid-way, the bundles'
 * build. server/test/test-projects.test.ts fails when a file that starts one is missing here, or one here starts none.
 */
export const PROCESS_TESTS = [
  "server/test/backup.test.ts",
  "server/test/build-stamp.test.ts",
  "server/test/caps-restart.test.ts",
  "server/test/cli-settings.test.ts",
  "server/test/cli.test.ts",
  "server/test/console-bootstrap.test.ts",
  "server/test/crash.test.ts",
  "server/test/data-dir.test.ts",
  "server/test/durability.test.ts",
  "server/test/import.test.ts",
  "server/test/migrate-concurrency.test.ts",
  "server/test/migrations.test.ts",
  "server/test/node-version.test.ts",
  "server/test/operators-security.test.ts",
  "server/test/pg-resilience.test.ts",
  "server/test/production-warnings.test.ts",
  "server/test/readiness-locks.test.ts",
  "server/test/scale-out.test.ts",
  "server/test/send-recovery.test.ts",
  "server/test/shutdown.test.ts",
  "server/test/static-assets.test.ts",
  "server/test/trust-boundary-process.test.ts",
  "server/test/webhooks-process.test.ts",
];

/**
 * The test files that replace a module (vi.mock): they run in a project that isolates each file, since the unit
 * project's shared module cache would hand them the real module another file imported first.
 * server/test/test-projects.test.ts keeps this list true.
 */
export const MOCKING_TESTS = ["server/test/bounded-input.test.ts"];

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
  test: {
    exclude: ["**/node_modules/**", "**/dist/**", "e2e/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Checks TESSERA_TEST_STORES, finds PostgreSQL, makes the migrated template stores (server/test/templates.ts).
    globalSetup: ["server/test/global-setup.ts"],
    // Every answer written by a compiled serializer is checked against the zod path's bytes (server/src/serialize.ts).
    env: { TESSERA_SERIALIZER_CHECK: "1" },
    projects: [
      {
        extends: true,
        // The unit files share one worker's modules instead of importing the server again for each file (a second or more
        // per file on a loaded machine): a test must not depend on module state another file left (none does today).
        test: { name: "unit", include: TESTS, exclude: [...PROCESS_TESTS, ...MOCKING_TESTS], isolate: false },
      },
      {
        extends: true,
        test: { name: "mocking", include: MOCKING_TESTS },
      },
      {
        extends: true,
        // A server start takes seconds on a loaded 2-core machine, several in one test more.
        test: { name: "process", include: PROCESS_TESTS, testTimeout: 90_000, hookTimeout: 120_000 },
      },
    ],
  },
});
