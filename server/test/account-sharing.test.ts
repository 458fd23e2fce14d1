// Account sharing (webhooks; docs/server-api.md): when an account's account_sharing risk rises to high, `account_sharing.signal`
// is emitted once for the rise and the project's admin is emailed (over real SMTP, read from the received mail), at
// most once a day per account whatever the number of rises, with `account_sharing.admin_notified`; on both stores.

import { WebhookPayload } from "@tessera/sdk/contract";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { buildApp } from "../src/app.js";
import { createServices, type Services } from "../src/services.js";
import { ADMIN_EMAIL_JOB } from "../src/webhooks/account-sharing.js";
import {
  BROWSER_UA,
  describeStores,
  fakeComponents,
  migratedDatabase,
  startTestApp,
  type TestApp,
  type TestDatabase,
  testConfig,
} from "./helpers.js";
import { startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";
import { eventually } from "./webhook-receiver.js";

const ADMIN = "admin@example.com";
const LET_EVERY_LOGIN_IN = {
  name: "Let every login in (test)",
  actions: ["login"],
  priority: 1000,
  conditions: { all: [] },
  verdict: "allow",
};

/**
 * A login of `user` from its own browser and network (`n`: a /24 of its own, private so that no place is involved),
 * consumed; answers the account_sharing risk's severity on that browser's next login. The risk is measured on the
 * account's own sessions only (risks/table.ts): a browser the user signed in on, which the first login's consume made
 * this one (a stranger's browser naming the account says nothing about how it is used).
 */
async function loginFrom(t: Pick<TestApp, "app" | "clientId" | "auth">, user: string, n: number): Promise<string | undefined> {
  let severity: string | undefined;
  for (const measured of [false, true]) {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "x-forwarded-for": `10.77.${n}.1` },
      payload: {
        client_id: t.clientId,
        user,
        signals: { components: fakeComponents(`${user}-browser-${n}`), visitor_token: `tok-${user}-${n}-xxxxxxxx` },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const { evaluation_id } = r.json() as { evaluation_id: string };
    const ev = await t.app.inject({ method: "GET", url: `/v3/evaluations/${evaluation_id}`, headers: t.auth });
    const { verdict, risks } = ev.json() as { verdict: string; risks: Array<{ name: string; severity: string }> };
    expect(verdict).toBe("allow");
    // The backend lets the login in and consumes it: the account is confirmed (a provisional user is not signalled).
    expect((await t.app.inject({ method: "POST", url: `/v3/evaluations/${evaluation_id}/consume`, headers: t.auth })).statusCode).toBe(200);
    // The evaluation lists the risks detected: an account-sharing risk it does not list is low (score 0).
    severity = risks.find((x) => x.name === "account_sharing")?.severity ?? "low";
    if (!measured) expect(severity).toBe("low");
  }
  return severity;
}

describeStores("account sharing on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp(kind, { SMTP_URL: smtp.url, EMAIL_FROM: "Tessera <no-reply@test.local>", TRUST_PROXY: "1" });
    // Every login is let in, so each new browser joins the account (a challenged one would not).
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: { name: "Let every login in (test)", actions: ["login"], priority: 1000, conditions: { all: [] }, verdict: "allow" },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    expect(await t.services.repos.projects.updateSettings(t.project.id, { admin_email: ADMIN })).toBe(true);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const eventsOf = async (name: string) =>
    (await t.services.repos.db.selectFrom("webhook_events").select("payload").where("event", "=", name).execute()).map((r) =>
      strict(WebhookPayload).parse(JSON.parse(r.payload)),
    );
  const adminMails = () => smtp.mails.filter((m) => m.to === ADMIN);

  const login = (user: string, n: number) => loginFrom(t, user, n);

  it("signals each rise, and emails the admin once a day per account", async () => {
    const user = "sharer";
    // Three browsers at three addresses: not yet shared.
    for (const n of [1, 2, 3]) expect(["low", "medium", undefined]).toContain(await login(user, n));
    expect(await eventsOf("account_sharing.signal")).toEqual([]);

    // A fourth, active at the same time from elsewhere: the risk rises, once.
    expect(["high", "maximum"]).toContain(await login(user, 4));
    const mail = await smtp.next(ADMIN);
    expect(mail.subject).toContain("Account sharer looks shared");
    expect(mail.text).toMatch(/account-sharing risk of account sharer (high|maximum)/);
    expect((await eventsOf("account_sharing.signal")).map((e) => e.account)).toEqual([user]);
    // The email is a job sent after the response; its event follows the send.
    await eventually(async () => (await eventsOf("account_sharing.admin_notified")).length > 0, "admin_notified");
    expect((await eventsOf("account_sharing.admin_notified")).map((e) => e.account)).toEqual([user]);

    // Still shared: no new signal, no new email.
    expect(["high", "maximum"]).toContain(await login(user, 5));
    expect(await eventsOf("account_sharing.signal")).toHaveLength(1);

    // The owner logs the others out; later the account is shared again: a second rise is signalled, but the admin
    // was emailed today already.
    const owner = await t.services.repos.users.findByExternal(await envId(), user);
    await t.services.repos.db.updateTable("devices").set({ status: "detached" }).where("user_id", "=", owner!.id).execute();
    expect(["low", "medium", undefined]).toContain(await login(user, 6));
    for (const n of [7, 8]) await login(user, n);
    expect(["high", "maximum"]).toContain(await login(user, 9));
    expect((await eventsOf("account_sharing.signal")).map((e) => e.account)).toEqual([user, user]);
    // The second rise's email job ran (and was refused by the daily limit): none is left.
    await eventually(async () => (await t.services.repos.jobs.pending()).length === 0, "the job outbox to drain");
    expect(await eventsOf("account_sharing.admin_notified")).toHaveLength(1);
    expect(adminMails()).toHaveLength(1);
  });

  it("reads back only the account's newest evaluation when that one was measured", async () => {
    const user = "sharer-again";
    for (const n of [1, 2, 3]) await login(user, n);
    expect(["high", "maximum"]).toContain(await login(user, 4));
    const signals = (await eventsOf("account_sharing.signal")).length;
    // Browser 4 again: its previous evaluation, the newest of the account, was measured and raised.
    const reads = vi.spyOn(t.services.repos.evaluations, "recentRisks");
    try {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        headers: { "x-forwarded-for": "10.77.4.1" },
        payload: {
          client_id: t.clientId,
          user,
          signals: { components: fakeComponents(`${user}-browser-4`), visitor_token: `tok-${user}-4-xxxxxxxx` },
        },
      });
      expect(r.statusCode, r.body).toBe(200);
      // One row read, not the ten of the look-back (the old code read ten at once); still no second signal.
      expect(reads.mock.calls.map((c) => c[3])).toEqual([1]);
      expect(await eventsOf("account_sharing.signal")).toHaveLength(signals);
    } finally {
      reads.mockRestore();
    }
  });

  async function envId(): Promise<string> {
    const env = await t.services.repos.projects.environmentByClientId(t.clientId);
    return env!.id;
  }
});

describeStores("the account-sharing risk on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: "1" });
  });
  afterAll(async () => t?.close());

  async function access(action: string, user: string, n: number) {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": "10.78.0.1" },
      payload: {
        client_id: t.clientId,
        user,
        signals: { components: fakeComponents(`${user}-${n}`), visitor_token: `tok-${user}-${n}-xxxxxxxx` },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const ev = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    // The viewer is signed in there: the backend consumes what it let through, so the device counts as theirs.
    await t.app.inject({ method: "POST", url: `/v3/evaluations/${r.json().evaluation_id}/consume`, headers: t.auth });
    return ev.json() as { checks: Record<string, unknown>; risks: Array<{ name: string; indicators: string[] }> };
  }
  const sharing = (ev: Awaited<ReturnType<typeof access>>) => ev.risks.find((r) => r.name === "account_sharing")?.indicators ?? [];

  it("its limit_exceeded indicator reads the sharing policy's device_limit, not a constant", async () => {
    // Two devices on one network: over a limit of 1, within the default 3. The risk is measured on a device's second
    // evaluation, once the first one's consume made it a device the viewer signed in on.
    await access("watch", "viewer", 1);
    await access("watch", "viewer", 2);
    expect(sharing(await access("watch", "viewer", 2))).not.toContain("limit_exceeded");
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "One screen per account",
        actions: ["watch"],
        priority: 10,
        conditions: { check: "devices_over_limit", op: "gt", value: 0 },
        verdict: "challenge",
        challenge: { type: "account_sharing", channels: ["email"], device_limit: 1 },
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    // The same two devices, now held to the policy's limit of 1.
    const over = await access("watch", "viewer", 2);
    expect(over.checks).toMatchObject({ device_limit: 1, devices_over_limit: 1 });
    expect(sharing(over)).toContain("limit_exceeded");
  });
});

// The admin's email is a job written in the evaluation's transaction (jobs/outbox.ts): a server that stops after the
// evaluation is committed and before the email is sent leaves the job in the store, and the next server sends it.
describeStores("an admin email interrupted by a stop on %s", (kind) => {
  let smtp: TestSmtp;
  let db: TestDatabase;
  const open: Array<{ close(): Promise<unknown> }> = [];
  beforeAll(async () => {
    smtp = await startSmtp();
    db = await migratedDatabase(kind);
  });
  afterAll(async () => {
    for (const o of open.reverse()) await o.close();
    await smtp?.close();
    await db?.drop();
  });
  const config = (workers: boolean) =>
    testConfig({
      ...db.env,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Tessera <no-reply@test.local>",
      TRUST_PROXY: "1",
      WORKERS: workers ? "1" : "0",
    });

  it("is sent by the next server, and admin_notified emitted then", async () => {
    // The first server runs no worker: it stops, in effect, between the evaluation's commit and the send.
    const first = await createServices(config(false));
    const app = await buildApp(first, { logger: false });
    const project = await first.repos.projects.create("Interrupted");
    const env = project.environments.development;
    const t = { app, clientId: env.client_id, auth: { authorization: `Bearer ${env.secret}` } };
    const browser = app.inject.bind(app);
    t.app.inject = ((opts: InjectOptions) =>
      browser({ ...opts, headers: { "user-agent": BROWSER_UA, ...(opts.headers ?? {}) } })) as typeof app.inject;
    expect((await app.inject({ method: "POST", url: "/v3/policies", headers: t.auth, payload: LET_EVERY_LOGIN_IN })).statusCode).toBe(201);
    expect(await first.repos.projects.updateSettings(project.id, { admin_email: ADMIN })).toBe(true);
    for (const n of [1, 2, 3]) await loginFrom(t, "interrupted", n);
    expect(["high", "maximum"]).toContain(await loginFrom(t, "interrupted", 4));
    const events = async (s: Services, name: string) => (await s.repos.webhooks.listEvents(env.id)).filter((e) => e.event === name);
    // Committed with the evaluation: the signal and the email's job; nothing sent.
    expect(await events(first, "account_sharing.signal")).toHaveLength(1);
    expect((await first.repos.jobs.pending()).map((j) => j.kind)).toEqual([ADMIN_EMAIL_JOB]);
    expect(smtp.mails).toEqual([]);
    expect(await events(first, "account_sharing.admin_notified")).toEqual([]);
    await app.close();
    await first.close();

    const next = await createServices(config(true));
    open.push(next);
    const mail = await smtp.next(ADMIN);
    expect(mail.text).toContain("account interrupted");
    await eventually(async () => (await events(next, "account_sharing.admin_notified")).length === 1, "admin_notified");
    await eventually(async () => (await next.repos.jobs.pending()).length === 0, "the job to be done");
    expect(smtp.mails.filter((m) => m.to === ADMIN)).toHaveLength(1);
  });
});
