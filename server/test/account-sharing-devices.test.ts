// The account-sharing page as its verified owner uses it, on both stores: devices that look alike (the same browser on
// the same system) are told apart by where they were last seen (IP address and place), and "Log out all other
// devices" logs out every device but the one in hand in one call — only once the owner's code is verified.
import { Challenge, ChallengeDevices, ErrorBody, Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";

/** Where each browser of the account is: Stockholm, Paris, and the one the challenge is opened from. */
const PLACES = [
  ["lena-1", "89.160.20.112"],
  ["lena-2", "90.84.23.1"],
  ["lena-3", "203.0.113.9"],
] as const;

describeStores("account sharing's device list on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  const devices: string[] = [];
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp(kind, { SMTP_URL: smtp.url, TRUST_PROXY: "1", CHALLENGE_IP_RATE_LIMIT: "100000" });
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Sharing (test)",
        actions: ["share_test"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "account_sharing", channels: ["email"], device_limit: 1 },
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    // One account signed in on three browsers, each the same Chrome on Windows, from three networks.
    for (const [seed, ip] of PLACES) {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/visit",
        headers: { "x-forwarded-for": ip },
        payload: {
          client_id: t.clientId,
          user: "lena",
          email: "lena@example.com",
          signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` },
        },
      });
      // The backend consumes each visit it let in (a session it authenticated as lena): only a vouched browser joins
      // the account (docs/security.md, "Recognising a browser is not trusting it").
      const consumed = await t.app.inject({ method: "POST", url: `/v3/evaluations/${r.json().evaluation_id}/consume`, headers: t.auth });
      const ev = strict(Evaluation).parse(consumed.json());
      expect(ev.verdict).toBe("allow");
      devices.push(ev.device!);
    }
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function challenge() {
    const [seed, ip] = PLACES[2];
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/share_test",
      headers: { "x-forwarded-for": ip },
      payload: {
        client_id: t.clientId,
        user: "lena",
        signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` },
      },
    });
    const link = new URL(r.json().redirect);
    const id = link.searchParams.get("challenge")!;
    const headers = { "x-challenge-token": link.searchParams.get("token")!, "x-forwarded-for": ip };
    const call = (method: "GET" | "POST", op: string, payload?: unknown) =>
      t.app.inject({ method, url: `/v3/challenges/${id}/${op}`, headers, ...(payload ? { payload: payload as object } : {}) });
    await call("POST", "open");
    return { id, call };
  }

  async function verified() {
    const c = await challenge();
    const since = smtp.mails.length;
    await c.call("POST", "send", { channel: "email" });
    const code = codeFrom(await smtp.next("lena@example.com", { since }));
    expect((await c.call("POST", "verify", { code })).statusCode).toBe(200);
    return c;
  }

  it("before the code is verified, logging out every other device is refused and logs nobody out", async () => {
    const c = await challenge();
    const r = await c.call("POST", "kick", { others: true });
    expect(r.statusCode).toBe(409);
    expect(strict(ErrorBody).parse(r.json()).error.message).toMatch(/^Verify the code before logging devices out/);
    const left = await t.app.inject({ method: "GET", url: "/v3/user/lena/devices", headers: t.auth });
    expect((left.json() as { status: string }[]).filter((d) => d.status === "attached").length).toBeGreaterThanOrEqual(2);
  });

  it("alike devices are told apart by their last address and place; the one in hand is marked", async () => {
    const c = await verified();
    const list = strict(ChallengeDevices).parse((await c.call("GET", "devices")).json()).data;
    const byId = new Map(list.map((d) => [d.id, d]));
    expect(byId.get(devices[0]!)).toMatchObject({ last_ip: "89.160.20.112", last_location: { city: "Stockholm", country_code: "SE" } });
    expect(byId.get(devices[1]!)).toMatchObject({ last_ip: "90.84.23.1", last_location: { city: "Paris", country_code: "FR" } });
    // A documentation address has no place: the address alone, and the marker of the browser in hand.
    expect(byId.get(devices[2]!)).toMatchObject({ last_ip: "203.0.113.9", current: true });
    expect(byId.get(devices[2]!)?.last_location).toBeUndefined();
    // The same browser and system on each: what the list would otherwise show three times alike.
    expect(new Set(list.map((d) => `${d.info.browser} ${d.info.os}`)).size).toBe(1);
  });

  it("'log out all other devices': one call detaches every device but the one in hand, then the challenge completes", async () => {
    const c = await verified();
    const both = await c.call("POST", "kick", { others: true, device: devices[0] });
    expect(both.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(both.json()).error.param).toBe("device");
    const neither = await c.call("POST", "kick", {});
    expect(neither.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(neither.json()).error.param).toBe("device");

    const r = await c.call("POST", "kick", { others: true });
    expect(r.statusCode, r.body).toBe(200);
    expect(
      strict(ChallengeDevices)
        .parse(r.json())
        .data.map((d) => d.id),
    ).toEqual([devices[2]]);
    const done = await c.call("POST", "complete", {});
    expect(done.statusCode, done.body).toBe(200);
    const challenge = strict(Challenge).parse(
      (await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}`, headers: t.auth })).json(),
    );
    expect(challenge.status).toBe("completed");
    const all = (await t.app.inject({ method: "GET", url: "/v3/user/lena/devices", headers: t.auth })).json() as {
      id: string;
      status: string;
    }[];
    expect(all.filter((d) => d.status === "attached").map((d) => d.id)).toEqual([devices[2]]);
  });
});
