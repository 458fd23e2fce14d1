// Crash safety (nothing acknowledged is lost; docs/storage.md): evaluations and consumes at full speed against the real
// server process, SIGKILL mid-run, restart on the same store, and every 2xx answer is still true — on both stores.
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, migratedDatabase, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, type ServerProcess, startServer } from "./server-process.js";
import { strict } from "./strict.js";

/** Acknowledged evaluations before the kill: enough to be mid-run with many requests in flight, quick on 2 cores. */
const KILL_AFTER = 400;
const WORKERS = 16;

type Consume = "none" | "acked" | "in_flight";

describeStores("crash safety on %s", (kind) => {
  let db: TestDatabase;
  let project: CliProject;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    db = await migratedDatabase(kind);
    project = await createProjectCli(db.env);
  });
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  it("every evaluation answered 2xx before a SIGKILL is found after restart, with its consumed state", async () => {
    server = await startServer(db.env);
    const first = server;
    const auth = { authorization: `Bearer ${project.secret}`, "content-type": "application/json" };
    const acked = new Map<string, Consume>();
    let killed = false;
    // Requests (evaluations and consumes) sent and not yet answered, and how many were when the kill was sent.
    let inFlight = 0;
    let inFlightAtKill = 0;
    let n = 0;

    const killNow = () => {
      if (killed) return;
      killed = true;
      inFlightAtKill = inFlight;
      void first.kill();
    };

    async function worker(w: number): Promise<void> {
      // Bounded: stops at the kill or after a generous number of iterations if the kill never comes.
      for (let i = 0; i < 10 * KILL_AFTER && !killed; i++) {
        const seed = `w${w}-${i}`;
        let id: string;
        try {
          inFlight++;
          const r = await fetch(`${first.url}/v3/client/evaluate/login`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              client_id: project.clientId,
              user: `user_${(n++ * 7) % 500}`,
              signals: { components: fakeComponents(seed), visitor_token: `vt-${seed}-xxxxxxxx` },
            }),
          }).finally(() => inFlight--);
          if (r.status !== 200) throw new Error(`evaluate answered ${r.status}: ${await r.text()}`);
          id = ((await r.json()) as { evaluation_id: string }).evaluation_id;
        } catch (e) {
          if (killed) return;
          throw e;
        }
        acked.set(id, "none");
        if (acked.size >= KILL_AFTER) killNow();
        if (i % 2 === 1) continue;
        acked.set(id, "in_flight");
        try {
          inFlight++;
          const c = await fetch(`${first.url}/v3/evaluations/${id}/consume`, { method: "POST", headers: auth, body: "{}" }).finally(
            () => inFlight--,
          );
          if (c.status !== 200) throw new Error(`consume answered ${c.status}: ${await c.text()}`);
          await c.arrayBuffer();
          acked.set(id, "acked");
        } catch (e) {
          if (killed) return;
          throw e;
        }
      }
    }

    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    expect(killed).toBe(true);
    expect(await first.exited).toBe("SIGKILL");
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);
    // Requests (evaluations or consumes) were still in flight when the kill was sent: it really happened mid-run.
    expect(inFlightAtKill).toBeGreaterThan(0);

    server = await startServer(db.env);
    const second = server;
    const ids = [...acked.keys()];
    const problems: string[] = [];
    for (let i = 0; i < ids.length; i += 25) {
      await Promise.all(
        ids.slice(i, i + 25).map(async (id) => {
          const r = await fetch(`${second.url}/v3/evaluations/${id}`, { headers: auth });
          if (r.status !== 200) {
            problems.push(`${id}: GET answered ${r.status}`);
            return;
          }
          const ev = strict(Evaluation).parse(await r.json());
          const state = acked.get(id);
          if (state === "acked" && (!ev.consumed || !ev.consumed_at))
            problems.push(`${id}: consume was acknowledged but it is not consumed`);
          if (state === "none" && ev.consumed) problems.push(`${id}: never consumed but it is`);
        }),
      );
    }
    expect(problems).toEqual([]);

    // The consumed state is live, not just readable: an acknowledged consume still blocks a second one, and an
    // evaluation never consumed can still be consumed once.
    const consumedOne = ids.find((id) => acked.get(id) === "acked");
    const freshOne = ids.find((id) => acked.get(id) === "none");
    expect(consumedOne && freshOne).toBeTruthy();
    const again = await fetch(`${second.url}/v3/evaluations/${consumedOne}/consume`, { method: "POST", headers: auth, body: "{}" });
    expect(again.status).toBe(409);
    const once = await fetch(`${second.url}/v3/evaluations/${freshOne}/consume`, { method: "POST", headers: auth, body: "{}" });
    expect(once.status).toBe(200);

    await second.stop();
    server = undefined;
  });
});
