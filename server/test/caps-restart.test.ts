// Abuse caps survive a restart (docs/security.md's caps per recipient and per user): the code sends per recipient and
// the wrong codes per user are counted in the store on both stores, so restarting the server (or crashing it) gives no
// budget back. Before, the embedded store counted them in memory (MemoryRateLimiter) and a restart reset them. Real
// server processes, real SMTP; the per-minute client API limit still lives in memory on the embedded store (a restart
// forgets at most a minute of it), and other recipients and users are not capped by someone else's count.
import { ChallengeView } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BROWSER_UA, describeStores, fakeComponents, freshDatabase, type TestDatabase } from "./helpers.js";
import { type CliProject, createProjectCli, type ServerProcess, startServer } from "./server-process.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";

const CHALLENGE_EVERY_LOGIN = {
  name: "Challenge every login (test)",
  actions: ["login"],
  priority: 1000,
  conditions: { all: [] },
  verdict: "challenge",
  challenge: { type: "account_takeover", channels: ["email"] },
};

describeStores("abuse caps across a restart on %s", (kind) => {
  let db: TestDatabase;
  let project: CliProject;
  let smtp: TestSmtp;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await freshDatabase(kind);
    project = await createProjectCli(db.env);
    smtp = await startSmtp();
    env = { ...db.env, SMTP_URL: smtp.url, CODE_SENDS_PER_RECIPIENT: "1", WRONG_CODES_PER_USER: "2", CHALLENGE_IP_RATE_LIMIT: "100000" };
  });
  afterAll(async () => {
    await server?.kill();
    await smtp?.close();
    await db?.drop();
  });

  const auth = () => ({ authorization: `Bearer ${project.secret}`, "content-type": "application/json" });
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${server!.url}${path}`, { method, headers: auth(), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  let n = 0;
  /** A new challenge for `user` (a login from a new browser each time). */
  async function challenge(user: string): Promise<string> {
    const seed = `${user}-${n++}`;
    const r = await fetch(`${server!.url}/v3/client/evaluate/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
      body: JSON.stringify({
        client_id: project.clientId,
        user,
        email: `${user}@example.com`,
        signals: { components: fakeComponents(seed) },
      }),
    });
    const body = (await r.json()) as { redirect?: string };
    if (!body.redirect) throw new Error(`not challenged: ${JSON.stringify(body)}`);
    return new URL(body.redirect).searchParams.get("challenge") as string;
  }
  const restart = async () => {
    await server?.stop();
    server = await startServer(env);
  };

  it("code sends per recipient and wrong codes per user stay spent after a restart; others are not capped", async () => {
    server = await startServer(env);
    expect((await call("POST", "/v3/policies", CHALLENGE_EVERY_LOGIN)).status).toBe(201);

    // One code per recipient per hour: the first goes out, the second is refused.
    const first = await challenge("capped");
    const since = smtp.mails.length;
    expect((await call("POST", `/v3/challenges/${first}/send`, { channel: "email" })).status).toBe(200);
    const code = codeFrom(await smtp.next("capped@example.com", { since }));
    expect((await call("POST", `/v3/challenges/${await challenge("capped")}/send`, { channel: "email" })).status).toBe(429);
    // Two wrong codes per user per hour: the third guess is refused whatever it is.
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 2; i++) expect((await call("POST", `/v3/challenges/${first}/verify`, { code: wrong })).status).toBe(400);
    expect((await call("POST", `/v3/challenges/${first}/verify`, { code: wrong })).status).toBe(429);

    await restart();

    // Still spent: a restart is not a way around the caps.
    expect((await call("POST", `/v3/challenges/${await challenge("capped")}/send`, { channel: "email" })).status).toBe(429);
    const guess = await call("POST", `/v3/challenges/${first}/verify`, { code });
    expect(guess.status).toBe(429);

    // The honest look-alike: another user and recipient has its own budgets, before and after the restart.
    const other = await challenge("other");
    const before = smtp.mails.length;
    expect((await call("POST", `/v3/challenges/${other}/send`, { channel: "email" })).status).toBe(200);
    const right = codeFrom(await smtp.next("other@example.com", { since: before }));
    const verified = await call("POST", `/v3/challenges/${other}/verify`, { code: right });
    expect(strict(ChallengeView).parse(await verified.json()).challenge.status).toBe("verified");
  });
});
