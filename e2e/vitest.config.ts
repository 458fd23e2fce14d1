// The browser end-to-end suite (docs/sdk.md): real server child processes, Debian's Chromium through playwright-core.
// One fork, files in sequence: each file starts its own server and browser, and two Chromiums at once on a
// 2-core machine would make every timing-sensitive step flaky.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
    maxWorkers: 1,
  },
});
