// Interrupted code sends are recovered (docs/challenges.md, docs/operations.md): a process that stops between recording a code and recording
// its delivery left the challenge "code_sent"/"pending" for good. The recovery marks such a send failed with a reason
// (the user asks for a new code) — at once after a restart on the embedded store (no other process can be sending),
// past the send deadline on PostgreSQL (another instance may still be sending) — on both stores.
import { once } from "node:events";
import net from "node:net";
import { Challenge, ChallengeView } from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERRUPTED_SEND_ERROR, recoverInterruptedSends, SEND_DEADLINE_MS } from "../src/challenges/recovery.js";
import { BROWSER_UA, describeStores, fakeComponents, migratedDatabase, startTestApp, type TestApp, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, type ServerProcess, startServer } from "./server-process.js";
import { strict } from "./strict.js";
import { eventually } from "./webhook-receiver.js";

/** A mail server that accepts connections and never says a word: a send to it hangs, as a crash mid-send would. */
async function silentSmtp(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => {}).on("close", () => sockets.delete(s));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `smtp://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const CHALLENGE_EVERY_LOGIN = {
  name: "Challenge every login (test)",
  actions: ["login"],
  priority: 1000,
  conditions: { all: [] },
  verdict: "challenge",
  challenge: { type: "account_takeover", channels: ["email"] },
};

describeStores("recovery of interrupted code sends on %s", (kind) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof silentSmtp>>;
  beforeAll(async () => {
    smtp = await silentSmtp();
    t = await startTestApp(kind, { SMTP_URL: smtp.url, CHALLENGE_IP_RATE_LIMIT: "100000" });
    const policy = await t.app.inject({ method: "POST", url: "/v3/policies", headers: t.auth, payload: CHALLENGE_EVERY_LOGIN });
    expect(policy.statusCode, policy.body).toBe(201);
  });
  afterAll(async () => {
    await smtp?.close();
    await t?.close();
  });

  it("a send stuck past its deadline becomes failed with a reason, and no challenge.pending is emitted", async () => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "stuck", email: "stuck@example.com", signals: { components: fakeComponents("stuck") } },
    });
    const id = new URL((r.json() as { redirect: string }).redirect).searchParams.get("challenge") as string;
    // The send hangs on the silent mail server: the challenge is in the state a crash at this point leaves.
    const sending = t.app.inject({ method: "POST", url: `/v3/challenges/${id}/send`, headers: t.auth, payload: { channel: "email" } });
    const stuck = await eventually(async () => {
      const c = strict(Challenge).parse((await t.app.inject({ method: "GET", url: `/v3/challenges/${id}`, headers: t.auth })).json());
      return c.delivery_status === "pending" ? c : undefined;
    }, "the send to start");
    expect(stuck.status).toBe("code_sent");

    // Within its deadline a send is left alone: on a shared store another instance may be sending it.
    expect(await recoverInterruptedSends(t.services.repos, Date.now() - SEND_DEADLINE_MS)).toBe(0);
    // Past it, it is recovered once.
    expect(await recoverInterruptedSends(t.services.repos, Date.now() + 1)).toBe(1);
    expect(await recoverInterruptedSends(t.services.repos, Date.now() + 1)).toBe(0);

    const view = strict(ChallengeView).parse(
      (await t.app.inject({ method: "GET", url: `/v3/challenges/${id}/view`, headers: t.auth })).json(),
    );
    expect(view.challenge.status).toBe("code_sent");
    expect(view.challenge.delivery_status).toBe("failed");
    expect(view.delivery_error).toBe(INTERRUPTED_SEND_ERROR);
    const env = t.project.environments.development.id;
    const events = await t.services.repos.webhooks.listEvents(env);
    expect(events.filter((e) => e.event === "challenge.pending" && e.payload.includes(id))).toEqual([]);

    // The stuck send itself ends (the mail server goes away) and records its own failure.
    await smtp.close();
    expect((await sending).statusCode).toBe(502);
  });
});

describe("an embedded-store server killed mid-send", () => {
  let db: TestDatabase;
  let project: CliProject;
  let server: ServerProcess | undefined;
  let smtp: Awaited<ReturnType<typeof silentSmtp>>;
  beforeAll(async () => {
    db = await migratedDatabase("sqlite");
    project = await createProjectCli(db.env);
    smtp = await silentSmtp();
  });
  afterAll(async () => {
    await server?.kill();
    await smtp?.close();
    await db?.drop();
  });

  it("reports the send failed right after the restart", async () => {
    const env = { ...db.env, SMTP_URL: smtp.url };
    server = await startServer(env);
    const auth = { authorization: `Bearer ${project.secret}`, "content-type": "application/json" };
    const policy = await fetch(`${server.url}/v3/policies`, { method: "POST", headers: auth, body: JSON.stringify(CHALLENGE_EVERY_LOGIN) });
    expect(policy.status).toBe(201);
    const evaluated = await fetch(`${server.url}/v3/client/evaluate/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
      body: JSON.stringify({
        client_id: project.clientId,
        user: "killed",
        email: "killed@example.com",
        signals: { components: fakeComponents("k") },
      }),
    });
    const id = new URL(((await evaluated.json()) as { redirect: string }).redirect).searchParams.get("challenge") as string;
    const first = server;
    void fetch(`${first.url}/v3/challenges/${id}/send`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ channel: "email" }),
    }).catch(() => undefined);
    const read = async (on: ServerProcess) =>
      strict(Challenge).parse(await (await fetch(`${on.url}/v3/challenges/${id}`, { headers: auth })).json());
    await eventually(async () => ((await read(first)).delivery_status === "pending" ? true : undefined), "the send to start");
    await first.kill();

    const second = await startServer(env);
    server = second;
    // The recovery runs as the server starts: no deadline to wait for.
    const after = await eventually(async () => {
      const c = await read(second);
      return c.delivery_status === "failed" ? c : undefined;
    }, "the send to be reported failed");
    expect(after.status).toBe("code_sent");
  });
});
