// A periodic job logs a failed run and carries on with the next one; stop() waits for a run in progress.
import { describe, expect, it } from "vitest";
import type { Log } from "../log.js";
import { PeriodicJob } from "./periodic.js";

describe("PeriodicJob", () => {
  it("logs a failed run with the job's name and runs again", async () => {
    const errors: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const log = { error: (obj: Record<string, unknown>, msg?: string) => errors.push({ obj, msg }), debug: () => {} } as unknown as Log;
    let runs = 0;
    let resolveSecond!: () => void;
    const second = new Promise<void>((r) => {
      resolveSecond = r;
    });
    const job = new PeriodicJob(
      "flaky",
      { firstMs: 0, everyMs: 0 },
      async (first) => {
        runs++;
        if (first) throw new Error("store unavailable");
        resolveSecond();
      },
      log,
    );
    job.start();
    await second;
    await job.stop();
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(errors[0]?.msg).toBe("job failed");
    expect(errors[0]?.obj).toMatchObject({ job: "flaky" });
    expect((errors[0]?.obj.err as Error | undefined)?.message).toBe("store unavailable");
  });
});
