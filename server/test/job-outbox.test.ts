// The job outbox (jobs/outbox.ts), on both stores: a job enqueued in a transaction exists only if it commits; a worker
// runs it after the commit and deletes it; a failing job is logged with its error and retried later, and after its
// last attempt logged as given up and dropped — never silently.
import { afterAll, beforeAll, expect, it } from "vitest";
import { JOB_MAX_ATTEMPTS, JobDoorbell, JobWorker, OutboxJobs } from "../src/jobs/outbox.js";
import { createServices, type Services } from "../src/services.js";
import { describeStores, migratedDatabase, type TestDatabase, testConfig } from "./helpers.js";
import { eventually } from "./webhook-receiver.js";

describeStores("the job outbox on %s", (kind) => {
  let db: TestDatabase;
  let s: Services;
  beforeAll(async () => {
    db = await migratedDatabase(kind);
    s = await createServices({ ...testConfig(db.env), WORKERS: false });
  });
  afterAll(async () => {
    await s?.close();
    await db?.drop();
  });

  function logCapture() {
    const lines: Array<{ level: string; obj: Record<string, unknown>; msg?: string }> = [];
    const push = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
    return { lines, log: { warn: push("warn"), error: push("error") } };
  }

  it("a job is enqueued with its transaction, run after the commit (rung), then gone", async () => {
    const bell = new JobDoorbell();
    const queue = new OutboxJobs(s.repos, ["test.ok"], bell);
    const ran: unknown[] = [];
    const { lines, log } = logCapture();
    const worker = new JobWorker(s.repos, { "test.ok": async (p) => void ran.push(p) }, bell, log, { pollMs: 3_600_000 });
    await expect(
      s.repos.transaction(async () => {
        await queue.enqueue("test.ok", { n: 0 });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await s.repos.jobs.pending("test.ok")).toEqual([]);
    await expect(queue.enqueue("test.unknown", {})).rejects.toThrow("Unknown job kind");

    worker.start();
    try {
      // The first round (at start) finds nothing; the commit below rings the worker, which runs the job at once.
      await eventually(async () => (await s.repos.jobs.pending()).length === 0 || undefined, "the start round");
      await s.repos.transaction(() => queue.enqueue("test.ok", { n: 1 }));
      await eventually(() => ran.length === 1 || undefined, "the job to run");
      expect(ran).toEqual([{ n: 1 }]);
      await eventually(async () => (await s.repos.jobs.pending("test.ok")).length === 0 || undefined, "the job to be deleted");
      expect(lines).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  it("a failing job is logged and retried later; after its last attempt it is logged as given up and dropped", async () => {
    const bell = new JobDoorbell();
    const queue = new OutboxJobs(s.repos, ["test.fail"], bell);
    const { lines, log } = logCapture();
    let calls = 0;
    const worker = new JobWorker(
      s.repos,
      {
        "test.fail": async () => {
          calls++;
          throw new Error("mail server down");
        },
      },
      bell,
      log,
    );
    await s.repos.transaction(() => queue.enqueue("test.fail", { to: "admin@example.com" }));
    expect(await worker.drain()).toBe(1);
    const [job] = await s.repos.jobs.pending("test.fail");
    expect(job?.attempts).toBe(1);
    expect(job?.last_error).toBe("mail server down");
    expect(job?.run_at).toBeGreaterThan(Date.now());
    expect(lines.map((l) => [l.level, l.msg, l.obj.job, l.obj.attempts])).toEqual([["warn", "job failed; will retry", "test.fail", 1]]);
    // Not due yet: the next round leaves it alone.
    expect(await worker.drain()).toBe(0);
    for (let attempt = 2; attempt <= JOB_MAX_ATTEMPTS; attempt++) {
      await s.repos.db.updateTable("jobs").set({ run_at: 0 }).where("kind", "=", "test.fail").execute();
      expect(await worker.drain()).toBe(1);
    }
    expect(calls).toBe(JOB_MAX_ATTEMPTS);
    expect(await s.repos.jobs.pending("test.fail")).toEqual([]);
    const last = lines[lines.length - 1];
    expect([last?.level, last?.msg, last?.obj.attempts]).toEqual(["error", "job given up after its last attempt", JOB_MAX_ATTEMPTS]);
    expect(lines.filter((l) => l.level === "warn")).toHaveLength(JOB_MAX_ATTEMPTS - 1);
  });
});
