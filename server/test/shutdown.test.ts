// A stop within 10 s whatever the outside world does (docs/operations.md#stopping): a SIGTERM while a code send waits
// on a mail server that accepted the connection and never answers, and while a webhook receiver holds a POST without
// answering. Before, the stop waited for the send (58 s) and for the webhook's timeout. Now the send is abandoned (its
// request answers 503) and recorded as interrupted, so after the restart the user is told to ask for a new code and a
// new one is sent at once; the webhook POST is aborted and its delivery released, then delivered after the restart.
import { once } from "node:events";
import net from "node:net";
import { ChallengeView } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { INTERRUPTED_SEND_ERROR } from "../src/challenges/recovery.js";
import { BROWSER_UA, describeStores, fakeComponents, freshDatabase, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, type ServerProcess, startServer } from "./server-process.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";
import { eventually } from "./webhook-receiver.js";

/** The stop a deployment can count on: under a common 30-s grace period, with room. */
const STOP_WITHIN_MS = 10_000;

/** Accepts connections and never says a word (a stalled mail server, or a webhook receiver that holds the request). */
async function silentServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on("error", () => {}).on("close", () => sockets.delete(s));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
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

describeStores("a SIGTERM while the mail server and a webhook receiver stall, on %s", (kind) => {
  let db: TestDatabase;
  let project: CliProject;
  let smtp: Awaited<ReturnType<typeof silentServer>>;
  let receiver: Awaited<ReturnType<typeof silentServer>>;
  let mail: TestSmtp;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    db = await freshDatabase(kind);
    project = await createProjectCli(db.env);
    smtp = await silentServer();
    receiver = await silentServer();
    mail = await startSmtp();
  });
  afterAll(async () => {
    for (const s of servers) await s.kill();
    await smtp?.close();
    await receiver?.close();
    await mail?.close();
    await db?.drop();
  });

  it("exits within 10 s; after the restart the send is reported interrupted and a new code goes out at once", async () => {
    // A webhook timeout longer than the whole test: only the stop can end that POST.
    const env = { ...db.env, WEBHOOK_TIMEOUT_MS: "60000", WEBHOOK_POLL_MS: "50" };
    const first = await startServer({ ...env, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
    servers.push(first);
    const auth = { authorization: `Bearer ${project.secret}`, "content-type": "application/json" };
    const call = (on: ServerProcess, method: string, path: string, body?: unknown) =>
      fetch(`${on.url}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect((await call(first, "POST", "/v3/policies", CHALLENGE_EVERY_LOGIN)).status).toBe(201);
    const endpoint = (await (
      await call(first, "POST", "/v3/webhook-endpoints", { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["user.converted"] })
    ).json()) as { id: string };
    const evaluated = await fetch(`${first.url}/v3/client/evaluate/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
      body: JSON.stringify({
        client_id: project.clientId,
        user: "stopped",
        email: "stopped@example.com",
        signals: { components: fakeComponents("s") },
      }),
    });
    const id = new URL(((await evaluated.json()) as { redirect: string }).redirect).searchParams.get("challenge") as string;
    const view = async (on: ServerProcess) =>
      strict(ChallengeView).parse(await (await call(on, "GET", `/v3/challenges/${id}/view`)).json());

    // The send waits on the silent mail server; the test event's POST waits on the silent receiver.
    const sending = call(first, "POST", `/v3/challenges/${id}/send`, { channel: "email" }).then(
      (r) => r.status,
      () => "connection closed",
    );
    await eventually(async () => ((await view(first)).challenge.delivery_status === "pending" ? true : undefined), "the send to start");
    expect((await call(first, "POST", `/v3/webhook-endpoints/${endpoint.id}/test`, {})).status).toBe(200);
    await eventually(() => (receiver.connections() > 0 ? true : undefined), "the webhook POST to start");

    const asked = Date.now();
    const exit = await Promise.race([first.stop(), new Promise((r) => setTimeout(() => r("still running"), STOP_WITHIN_MS))]);
    const tookMs = Date.now() - asked;
    expect(exit, `${first.stderr()}\n${first.stdout()}`).toBe(0);
    expect(tookMs).toBeLessThan(STOP_WITHIN_MS);
    // The request was answered, not cut: the send was abandoned and the client told to retry.
    expect(await sending).toBe(503);

    // The same store, and a mail server that works.
    const second = await startServer({ ...env, SMTP_URL: mail.url });
    servers.push(second);
    const after = await view(second);
    expect(after.challenge.delivery_status).toBe("failed");
    expect(after.delivery_error).toBe(INTERRUPTED_SEND_ERROR);
    // The interrupted send does not hold the user to the resend cooldown: a new code may be asked for now.
    expect(Date.parse(after.resend_available_at as string)).toBeLessThanOrEqual(Date.now());
    const since = mail.mails.length;
    const resent = await call(second, "POST", `/v3/challenges/${id}/send`, { channel: "email" });
    expect(resent.status, await resent.clone().text()).toBe(200);
    const code = codeFrom(await mail.next("stopped@example.com", { since }));
    const verified = await call(second, "POST", `/v3/challenges/${id}/verify`, { code });
    expect(strict(ChallengeView).parse(await verified.json()).challenge.status).toBe("verified");

    // The aborted webhook POST was not an attempt: its delivery was released, still pending with no attempt counted
    // (the restarted worker sends it again, to the receiver that still holds it).
    const deliveries = (await (await call(second, "GET", `/v3/webhook-endpoints/${endpoint.id}/deliveries`)).json()) as {
      data: Array<{ status: string; attempts: number; last_error?: string }>;
    };
    expect(deliveries.data).toEqual([expect.objectContaining({ status: "pending", attempts: 0 })]);
    expect(deliveries.data[0]?.last_error).toBeUndefined();
  });
});
