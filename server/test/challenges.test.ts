// Challenges (docs/server-api.md, docs/challenges.md): issued by a challenge policy, run with the challenge token or a secret key, codes
// delivered over real SMTP and read from the received mail; on both stores.
import {
  Challenge,
  ChallengeView,
  ErrorBody,
  Evaluation,
  WEBHOOK_PAYLOADS,
  type WebhookEvent,
  type WebhookPayloadOf,
} from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";

describeStores("challenges on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp();
    // Every test request comes from 127.0.0.1: lift the per-IP limit so that only the per-challenge one is tested.
    t = await startTestApp(kind, { SMTP_URL: smtp.url, EMAIL_FROM: "Tessera <no-reply@test.local>", CHALLENGE_IP_RATE_LIMIT: "100000" });
    // Return URLs must be on an allowed origin (docs/security.md).
    await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", ["https://app.example.com"]);
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Challenge every login (test)",
        actions: ["login"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "account_takeover", channels: ["email"], success_url: "https://app.example.com/welcome" },
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    const sharing = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Sharing (test)",
        actions: ["share_test"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "account_sharing", channels: ["email"], device_limit: 1, signup_url: "https://app.example.com/signup" },
      },
    });
    expect(sharing.statusCode, sharing.body).toBe(201);
    const skippable = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Skippable (test)",
        actions: ["skip_test"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "fake_account", channels: ["email"], allow_skip: true, skip_limit: 1 },
      },
    });
    expect(skippable.statusCode, skippable.body).toBe(201);
  });

  const eventsOf = async <E extends WebhookEvent>(name: E): Promise<WebhookPayloadOf<E>[]> =>
    (await t.services.repos.db.selectFrom("webhook_events").select(["event", "payload"]).where("event", "=", name).execute()).map(
      (r) => strict(WEBHOOK_PAYLOADS[name]).parse(JSON.parse(r.payload)) as WebhookPayloadOf<E>,
    );
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function challengedLogin(user: string, email = `${user}@example.com`, action = "login", seed = user) {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      payload: {
        client_id: t.clientId,
        user,
        email,
        signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx`, url: "https://app.example.com/login" },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const { evaluation_id, redirect } = r.json() as { evaluation_id: string; redirect?: string };
    expect(redirect).toBeDefined();
    const url = new URL(redirect!);
    expect(url.pathname).toBe("/challenge/");
    const id = url.searchParams.get("challenge")!;
    const token = url.searchParams.get("token")!;
    return { evaluation_id, id, token, headers: { "x-challenge-token": token } };
  }

  const call = (method: "GET" | "POST" | "DELETE", url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) } as const);

  it("runs created → presented → code_sent → verified → completed with the code from the real mail", async () => {
    const c = await challengedLogin("alice");
    const ev = strict(Evaluation).parse((await call("GET", `/v3/evaluations/${c.evaluation_id}`, t.auth)).json());
    expect(ev.verdict).toBe("challenge");
    expect(ev.challenge).toMatchObject({ id: c.id, status: "created", type: "account_takeover" });

    const opened = strict(ChallengeView).parse((await call("POST", `/v3/challenges/${c.id}/open`, c.headers)).json());
    expect(opened.challenge.status).toBe("presented");
    expect(opened.challenge.challenge_mode).toBe("service_managed");
    expect(opened.available_channels).toEqual([{ channel: "email", destination: "a****@example.com" }]);

    const since = smtp.mails.length;
    const sent = await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email", language: "fr" });
    expect(sent.statusCode, sent.body).toBe(200);
    const sentView = strict(ChallengeView).parse(sent.json());
    expect(sentView.challenge.status).toBe("code_sent");
    // The mail server took it: delivered, as far as SMTP tells.
    expect(sentView.challenge.delivery_status).toBe("delivered");
    expect(sentView.challenge.channels).toEqual(["email"]);
    const mail = await smtp.next("alice@example.com", { since });
    expect(mail.subject).toMatch(/code de vérification/);
    expect(mail.html).toContain('lang="fr"');
    const code = codeFrom(mail);

    const verified = strict(ChallengeView).parse((await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code })).json());
    expect(verified.challenge.status).toBe("verified");
    expect(verified.challenge.email_verified).toBe(true);
    expect(verified.challenge.verify_attempts).toBe(1);

    // The challenged browser joins the account only once the challenge passes.
    const userDevices = async () => (await call("GET", "/v3/user/alice/devices", t.auth)).json() as Array<{ id: string; status: string }>;
    expect((await userDevices()).map((d) => d.id)).not.toContain(ev.device);
    const done = strict(ChallengeView).parse((await call("POST", `/v3/challenges/${c.id}/complete`, c.headers, {})).json());
    expect(done.challenge.status).toBe("completed");
    expect(done.success_url).toBe("https://app.example.com/welcome");
    expect((await userDevices()).find((d) => d.id === ev.device)?.status).toBe("attached");

    const consumed = strict(Evaluation).parse((await call("POST", `/v3/evaluations/${c.evaluation_id}/consume`, t.auth)).json());
    expect(consumed.challenge?.status).toBe("completed");
    expect((await call("POST", `/v3/evaluations/${c.evaluation_id}/consume`, t.auth)).statusCode).toBe(409);
    // The backend sees the same challenge with its secret.
    const byBackend = strict(Challenge).parse((await call("GET", `/v3/challenges/${c.id}`, t.auth)).json());
    expect(byBackend.user?.id).toBe("alice");
    expect(byBackend.status).toBe("completed");
  });

  it("impossible moves answer 409 invalid_transition", async () => {
    const c = await challengedLogin("bob");
    const r = await call("POST", `/v3/challenges/${c.id}/complete`, c.headers, {});
    expect(r.statusCode).toBe(409);
    expect(strict(ErrorBody).parse(r.json()).error.code).toBe("invalid_transition");
    const v = await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code: "123456" });
    expect(v.statusCode).toBe(409);
  });

  it("five wrong codes fail the challenge; the right code after that is refused", async () => {
    const c = await challengedLogin("carol");
    const since = smtp.mails.length;
    await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" });
    const right = codeFrom(await smtp.next("carol@example.com", { since }));
    const wrong = right === "000000" ? "111111" : "000000";
    for (let i = 1; i <= 4; i++) {
      const r = await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code: wrong });
      expect(r.statusCode).toBe(400);
      expect(r.json().error.code).toBe("invalid_code");
      expect(r.json().error.message).toContain(`${5 - i} attempt`);
    }
    const fifth = await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code: wrong });
    expect(fifth.statusCode).toBe(409);
    expect(fifth.json().error.code).toBe("too_many_attempts");
    const view = strict(ChallengeView).parse((await call("GET", `/v3/challenges/${c.id}/view`, c.headers)).json());
    expect(view.challenge.status).toBe("failed");
    expect(view.failure_reason).toBe("too_many_attempts");
    expect(view.attempts_left).toBe(0);
    expect((await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code: right })).statusCode).toBe(409);
  });

  it("an expired code is refused with code_expired", async () => {
    const c = await challengedLogin("dave");
    const since = smtp.mails.length;
    await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" });
    const code = codeFrom(await smtp.next("dave@example.com", { since }));
    await t.services.repos.challenges.updateIf(c.id, ["code_sent"], { code_expires_at: Date.now() - 1 });
    const r = await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe("code_expired");
  });

  it("resends are rate limited with Retry-After", async () => {
    const c = await challengedLogin("erin");
    expect((await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" })).statusCode).toBe(200);
    const again = await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" });
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers["retry-after"])).toBeGreaterThan(0);
    expect(again.json().error.code).toBe("rate_limited");
  });

  it("operations on one challenge are rate limited per challenge with Retry-After", async () => {
    const c = await challengedLogin("lena");
    const codes: number[] = [];
    for (let i = 0; i < 35; i++) codes.push((await call("POST", `/v3/challenges/${c.id}/open`, c.headers)).statusCode);
    expect(codes.slice(0, 30).every((s) => s === 200)).toBe(true);
    const limited = await call("POST", `/v3/challenges/${c.id}/open`, c.headers);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("a delivery failure is recorded and reported, not swallowed", async () => {
    const c = await challengedLogin("frank");
    smtp.refuse = true;
    try {
      const r = await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" });
      expect(r.statusCode).toBe(502);
      expect(r.json().error.code).toBe("delivery_failed");
    } finally {
      smtp.refuse = false;
    }
    const view = strict(ChallengeView).parse((await call("GET", `/v3/challenges/${c.id}/view`, c.headers)).json());
    expect(view.challenge.delivery_status).toBe("failed");
    expect(view.delivery_error).toMatch(/refused/);
  });

  it("a token opens its own challenge only; forged and missing credentials are refused", async () => {
    const a = await challengedLogin("gina");
    const b = await challengedLogin("hank");
    expect((await call("GET", `/v3/challenges/${b.id}/view`, a.headers)).statusCode).toBe(403);
    expect((await call("GET", `/v3/challenges/${a.id}/view`, { "x-challenge-token": `${a.token}x` })).statusCode).toBe(401);
    expect((await call("GET", `/v3/challenges/${a.id}/view`, {})).statusCode).toBe(401);
    // The token does not list challenges; a secret does.
    expect((await call("GET", "/v3/challenges", a.headers)).statusCode).toBe(401);
    expect((await call("GET", `/v3/challenges/${a.id}`, { authorization: `Bearer ${t.otherSecret}` })).statusCode).toBe(404);
  });

  it("a newer challenge for the same user and device overrides the pending one", async () => {
    const first = await challengedLogin("ivy");
    const second = await challengedLogin("ivy");
    expect(second.id).not.toBe(first.id);
    const old = strict(Challenge).parse((await call("GET", `/v3/challenges/${first.id}`, t.auth)).json());
    expect(old.status).toBe("overridden");
  });

  it("lists challenges newest first with filters and pagination", async () => {
    await challengedLogin("jack");
    await challengedLogin("jack", "jack@example.com", "login", "jack2");
    const r = await call("GET", "/v3/challenges?user=jack&limit=1&page=1", t.auth);
    expect(r.statusCode).toBe(200);
    const page = r.json() as { data: Challenge[]; total: number; page: number; limit: number };
    expect(page.total).toBe(2);
    expect(page.data).toHaveLength(1);
    const all = (await call("GET", "/v3/challenges?user=jack", t.auth)).json() as { data: Challenge[] };
    expect(new Date(all.data[0]!.createdAt).getTime()).toBeGreaterThanOrEqual(new Date(all.data[1]!.createdAt).getTime());
    const bad = await call("GET", "/v3/challenges?limit=500", t.auth);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe("limit");
    const byStatus = (await call("GET", "/v3/challenges?status=completed", t.auth)).json() as { data: Challenge[] };
    for (const ch of byStatus.data) expect(ch.status).toBe("completed");
  });

  it("account sharing: the verified owner kicks devices to the limit, then completes; kicked devices log out", async () => {
    // One account signed in on three devices (an action no test policy challenges, consumed by the backend: a page
    // view alone puts no device on an account's list); limit 1.
    const devices = [];
    for (const seed of ["k1", "k2", "k3"]) {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/visit",
        payload: {
          client_id: t.clientId,
          user: "kate",
          email: "kate@example.com",
          signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` },
        },
      });
      expect((await call("POST", `/v3/evaluations/${r.json().evaluation_id}/consume`, t.auth)).statusCode).toBe(200);
      devices.push(strict(Evaluation).parse((await call("GET", `/v3/evaluations/${r.json().evaluation_id}`, t.auth)).json()).device!);
    }
    const c = await challengedLogin("kate", "kate@example.com", "share_test", "k3");
    await call("POST", `/v3/challenges/${c.id}/open`, c.headers);
    // Listing (docs/security.md) and kicking before verifying are refused.
    expect((await call("GET", `/v3/challenges/${c.id}/devices`, c.headers)).statusCode).toBe(403);
    expect((await call("POST", `/v3/challenges/${c.id}/kick`, c.headers, { device: devices[0] })).statusCode).toBe(409);
    const since = smtp.mails.length;
    await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" });
    const code = codeFrom(await smtp.next("kate@example.com", { since }));
    expect((await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code })).statusCode).toBe(200);
    const list = (await call("GET", `/v3/challenges/${c.id}/devices`, c.headers)).json() as {
      data: Array<{ id: string; current?: boolean }>;
    };
    expect(list.data.map((d) => d.id).sort()).toEqual([...devices].sort());
    expect(list.data.find((d) => d.current)?.id).toBe(devices[2]);
    const over = await call("POST", `/v3/challenges/${c.id}/complete`, c.headers, {});
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe("over_device_limit");
    expect((await call("POST", `/v3/challenges/${c.id}/kick`, c.headers, { device: devices[2] })).statusCode).toBe(400);
    await call("POST", `/v3/challenges/${c.id}/kick`, c.headers, { device: devices[0] });
    const after = (await call("POST", `/v3/challenges/${c.id}/kick`, c.headers, { device: devices[1] })).json() as {
      data: Array<{ id: string }>;
    };
    expect(after.data.map((d) => d.id)).toEqual([devices[2]]);
    // Each kick is a device.detached event for the account.
    const detached = (await eventsOf("device.detached")).filter((e) => e.account === "kate").map((e) => e.device.id);
    expect(detached.sort()).toEqual([devices[0], devices[1]].sort());
    const done = strict(ChallengeView).parse((await call("POST", `/v3/challenges/${c.id}/complete`, c.headers, {})).json());
    expect(done.challenge.status).toBe("completed");
    // The kicked browser's next evaluation tells its SDK to log out, once.
    const next = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/access",
      payload: { client_id: t.clientId, user: "kate", signals: { components: fakeComponents("k1"), visitor_token: "tok-k1-xxxxxxxx" } },
    });
    expect(next.json().logout).toBe(true);
  });

  it("skipping is offered only when the policy allows it, within the user's skip limit", async () => {
    const first = await challengedLogin("mia", "mia@example.com", "skip_test", "mia1");
    const view = strict(ChallengeView).parse((await call("POST", `/v3/challenges/${first.id}/open`, first.headers)).json());
    expect(view.allow_skip).toBe(true);
    const skipped = strict(ChallengeView).parse(
      (await call("POST", `/v3/challenges/${first.id}/complete`, first.headers, { outcome: "skip" })).json(),
    );
    expect(skipped.challenge.status).toBe("skipped");
    const second = await challengedLogin("mia", "mia@example.com", "skip_test", "mia2");
    const view2 = strict(ChallengeView).parse((await call("POST", `/v3/challenges/${second.id}/open`, second.headers)).json());
    expect(view2.allow_skip).toBe(false);
    const refused = await call("POST", `/v3/challenges/${second.id}/complete`, second.headers, { outcome: "skip" });
    expect(refused.statusCode).toBe(403);
    // A policy that does not allow skipping refuses it.
    const ato = await challengedLogin("noah");
    expect((await call("POST", `/v3/challenges/${ato.id}/complete`, ato.headers, { outcome: "skip" })).statusCode).toBe(403);
    expect((await eventsOf("challenge.skipped")).some((e) => e.challenge.id === first.id)).toBe(true);
  });

  it("records challenge.initiated, viewed, pending and completed events with the challenge and account", async () => {
    const c = await challengedLogin("olga");
    await call("POST", `/v3/challenges/${c.id}/open`, c.headers);
    const since = smtp.mails.length;
    await call("POST", `/v3/challenges/${c.id}/send`, c.headers, { channel: "email" });
    const code = codeFrom(await smtp.next("olga@example.com", { since }));
    await call("POST", `/v3/challenges/${c.id}/verify`, c.headers, { code });
    await call("POST", `/v3/challenges/${c.id}/complete`, c.headers, {});
    for (const [event, status] of [
      ["challenge.initiated", "created"],
      ["challenge.viewed", "presented"],
      ["challenge.pending", "code_sent"],
      ["challenge.completed", "completed"],
    ] as const) {
      const mine = (await eventsOf(event)).filter((e) => e.challenge.id === c.id);
      expect(mine, event).toHaveLength(1);
      expect(mine[0]?.account).toBe("olga");
      expect((mine[0]?.challenge as { status: string } | undefined)?.status).toBe(status);
    }
  });

  it("a sharer who chooses to create their own account and then signs up is user.converted", async () => {
    const owner = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: {
        client_id: t.clientId,
        user: "pat",
        email: "pat@example.com",
        signals: { components: fakeComponents("p1"), visitor_token: "tok-p1-xxxxxxxx" },
      },
    });
    expect(owner.statusCode).toBe(200);
    const c = await challengedLogin("pat", "pat@example.com", "share_test", "p2");
    const choice = await call("POST", `/v3/challenges/${c.id}/signup`, c.headers);
    expect(choice.statusCode, choice.body).toBe(200);
    expect(choice.json().redirect).toBe("https://app.example.com/signup");
    const signup = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/signup",
      payload: {
        client_id: t.clientId,
        user: "pats_own",
        email: "own@example.com",
        signals: { components: fakeComponents("p2"), visitor_token: "tok-p2-xxxxxxxx" },
      },
    });
    expect(signup.statusCode).toBe(200);
    const converted = await eventsOf("user.converted");
    expect(converted.some((e) => e.account === "pats_own")).toBe(true);
    // An ATO challenge offers no account creation.
    const ato = await challengedLogin("quinn");
    expect((await call("POST", `/v3/challenges/${ato.id}/signup`, ato.headers)).statusCode).toBe(409);
  });

  it("a sharer who chooses their own account and signs up with an email only (as sign-up forms send it) is user.converted", async () => {
    await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: {
        client_id: t.clientId,
        user: "sal",
        email: "sal@example.com",
        signals: { components: fakeComponents("s1"), visitor_token: "tok-s1-xxxxxxxx" },
      },
    });
    const c = await challengedLogin("sal", "sal@example.com", "share_test", "s2");
    expect((await call("POST", `/v3/challenges/${c.id}/signup`, c.headers)).statusCode).toBe(200);
    const signup = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/signup",
      payload: {
        client_id: t.clientId,
        email: "sals-own@example.com",
        signals: { components: fakeComponents("s2"), visitor_token: "tok-s2-xxxxxxxx" },
      },
    });
    expect(signup.statusCode, signup.body).toBe(200);
    const ev = await call("GET", `/v3/evaluations/${signup.json().evaluation_id}`, t.auth);
    // An email-only account has no customer id: the event names the account the email made.
    const account = ev.json().user?.service_id as string;
    expect(account).toBeTruthy();
    const converted = (await eventsOf("user.converted")).filter((e) => (e.user as { service_id: string }).service_id === account);
    expect(converted).toHaveLength(1);
    expect((converted[0]?.challenge as { id: string } | undefined)?.id).toBe(c.id);
  });

  it("a stranger presenting the owner's components who chooses their own account marks nothing on the owner's device", async () => {
    const evaluate = (action: string, token: string, user = "uma", email = "uma@example.com") =>
      t.app.inject({
        method: "POST",
        url: `/v3/client/evaluate/${action}`,
        payload: {
          client_id: t.clientId,
          user,
          email,
          signals: { components: fakeComponents("u1"), visitor_token: token, url: "https://app.example.com/login" },
        },
      });
    const deviceOf = async (r: { json: () => { evaluation_id: string } }) =>
      strict(Evaluation).parse((await call("GET", `/v3/evaluations/${r.json().evaluation_id}`, t.auth)).json()).device;
    // The owner's browser on its own token.
    const owner = await evaluate("login", "tok-u1-xxxxxxxx");
    expect(owner.statusCode).toBe(200);
    // A stranger with a copy of the owner's components on a token of their own: recognised as the owner's device.
    const copied = await evaluate("share_test", "tok-u1-copy-xxxxxxxx");
    expect(copied.statusCode, copied.body).toBe(200);
    expect(await deviceOf(copied)).toBe(await deviceOf(owner));
    const link = new URL(copied.json().redirect as string);
    const id = link.searchParams.get("challenge") as string;
    const headers = { "x-challenge-token": link.searchParams.get("token") as string };
    expect((await call("POST", `/v3/challenges/${id}/signup`, headers)).statusCode).toBe(200);
    // The owner opens a second account from their own browser: not a sharer converted.
    const second = await evaluate("signup", "tok-u1-xxxxxxxx", "uma_second", "uma2@example.com");
    expect(second.statusCode).toBe(200);
    expect((await eventsOf("user.converted")).some((e) => e.account === "uma_second")).toBe(false);
    // The stranger's own browser, on its own token, marked nothing either.
    const own = await evaluate("signup", "tok-u1-copy-xxxxxxxx", "uma_copy", "copy@example.com");
    expect(own.statusCode).toBe(200);
    expect((await eventsOf("user.converted")).some((e) => e.account === "uma_copy")).toBe(false);
  });

  it("erasing a user erases their challenges", async () => {
    const c = await challengedLogin("rose");
    const erased = await call("DELETE", "/v3/user/rose", t.auth);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().deleted.challenges).toBeGreaterThanOrEqual(1);
    expect((await call("GET", `/v3/challenges/${c.id}`, t.auth)).statusCode).toBe(404);
  });
});
