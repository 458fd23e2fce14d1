// Budgets per source and sends capped where pumping happens (docs/security.md), on both stores, over HTTP: each attack
// replayed with what an outside attacker has (the public client id, a victim's user id, the challenge links of its
// own challenges), beside the honest look-alike that must keep working. Codes travel over real SMTP (smtp.ts) and to
// a real HTTP SMS provider; the client address comes from X-Forwarded-For (one trusted proxy).
// 1. Lock-out: a stranger's challenges (raised by claiming other contacts, or by anything else) and what it does
//    through their links spend the stranger's budgets — its browser's and its network's — never the owner's.
// 2. Pumping: one inbox is one recipient whatever its spelling; sends are capped per client IP (an IPv6 /64) and per
//    project; texts go only to the countries the environment allows.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ChallengeView, EnvironmentSettings, ErrorBody, Evaluation } from "@tessera/sdk/contract";
import { userToken } from "@tessera/sdk/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../src/app.js";
import { RESEND_COOLDOWN_MS } from "../src/challenges/codes.js";
import { main } from "../src/cli.js";
import { createServices } from "../src/services.js";
import type { CreatedProject } from "../src/store/projects.js";
import { consoleCall, operator } from "./console-helpers.js";
import { describeStores, fakeComponents, freshDatabase, startTestApp, type TestApp, testConfig } from "./helpers.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";

/** An HTTP SMS provider (SMS_PROVIDER=http): records each message; `down` makes it answer 503, as in an outage. */
async function startSmsProvider() {
  const messages: { to: string; body: string }[] = [];
  const state = { down: false };
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => resolve(body));
    });
  const server: Server = createServer(async (req, res) => {
    const message = JSON.parse(await read(req)) as { to: string; body: string };
    if (state.down) return void res.writeHead(503).end();
    messages.push(message);
    res.writeHead(202, { "content-type": "application/json" }).end('{"id":"msg_1"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    messages,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Residential addresses of the shipped geolocation data: each owner's home in England (a /24 each: the default rules
// count never-seen browsers per network), the owner's trip to Tokyo with a new laptop (a new country: the default
// policy challenges it), and a stranger's networks in England (a /24 per case, a browser per address).
const HOMES: Record<string, string> = {
  lock_pending: "86.1.1.1",
  lock_recipient: "86.1.2.1",
  lock_user: "86.1.3.1",
  lock_guess: "86.1.4.1",
  fail_user: "86.1.5.1",
  lock_home: "81.2.69.142",
};
const TOKYO = "126.0.0.1";
const STRANGER = (net: number, n: number) => `92.48.${100 + net}.${n}`;
const PHONE = "+33612345678";

type Link = { id: string; headers: { "x-challenge-token": string } };

describeStores("budgets per source on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  let sms: Awaited<ReturnType<typeof startSmsProvider>>;
  let seq = 0;
  beforeAll(async () => {
    smtp = await startSmtp();
    sms = await startSmsProvider();
    t = await startTestApp(kind, {
      WORKERS: "0",
      TRUST_PROXY: "1",
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Tessera <no-reply@test.local>",
      SMS_PROVIDER: "http",
      SMS_API_URL: sms.url,
      CLIENT_RATE_LIMIT: "100000",
      CHALLENGE_IP_RATE_LIMIT: "100000",
    });
    // The default "Verify unfamiliar logins" and "Challenge automation" offer texts too here, as a customer may choose.
    const policies = (await t.app.inject({ method: "GET", url: "/v3/policies?limit=100", headers: t.auth })).json() as {
      data: { id: string; name: string; challenge?: Record<string, unknown> }[];
    };
    for (const name of ["Verify unfamiliar logins", "Challenge automation"]) {
      const policy = policies.data.find((p) => p.name === name);
      const patched = await t.app.inject({
        method: "PATCH",
        url: `/v3/policies/${policy?.id}`,
        headers: t.auth,
        payload: { challenge: { ...policy?.challenge, channels: ["email", "text"] } },
      });
      expect(patched.statusCode, patched.body).toBe(200);
    }
    // Every `verify_test` evaluation is challenged: the honest cases that need a challenge, whoever asks.
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Challenge verify_test (test)",
        actions: ["verify_test"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "account_takeover", channels: ["email", "text"] },
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await sms?.close();
  });

  const read = async (id: string) =>
    strict(Evaluation).parse((await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth })).json());

  /** A client evaluation as a browser (or an attacker's script) makes it: public client id, its own browser and IP. */
  async function client(
    action: string,
    body: Record<string, unknown>,
    opts: { ip: string; seed?: string; automation?: boolean },
  ): Promise<{ evaluation_id: string; redirect?: string }> {
    const seed = opts.seed ?? `seed-${kind}-${++seq}`;
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": opts.ip },
      payload: {
        client_id: t.clientId,
        ...body,
        signals: {
          components: fakeComponents(seed),
          visitor_token: `tok-${seed}-xxxxxxxx`,
          url: "https://app.example.com/login",
          ...(opts.automation ? { automation: { webdriver: true } } : {}),
        },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    return r.json();
  }
  const link = (redirect: string | undefined): Link => {
    const url = new URL(redirect ?? "");
    return { id: url.searchParams.get("challenge") ?? "", headers: { "x-challenge-token": url.searchParams.get("token") ?? "" } };
  };
  /** A challenge the evaluation opened: its link. */
  const challenged = (ev: { redirect?: string }): Link => {
    expect(ev.redirect, "challenged").toBeDefined();
    return link(ev.redirect);
  };
  const send = (c: Link, ip: string, channel = "email") =>
    t.app.inject({
      method: "POST",
      url: `/v3/challenges/${c.id}/send`,
      headers: { ...c.headers, "x-forwarded-for": ip },
      payload: { channel },
    });
  const verify = (c: Link, ip: string, code: string) =>
    t.app.inject({
      method: "POST",
      url: `/v3/challenges/${c.id}/verify`,
      headers: { ...c.headers, "x-forwarded-for": ip },
      payload: { code },
    });
  /** The attacker waits out the 30 s between two sends of one challenge. */
  const waitOutCooldown = (c: Link) =>
    t.services.repos.db
      .updateTable("challenges")
      .set({ last_sent_at: Date.now() - RESEND_COOLDOWN_MS - 1 })
      .where("id", "=", c.id)
      .execute();
  /** The code of the latest text to `to` since `since` messages. */
  const textedCode = (to: string, since: number) => {
    const m = sms.messages.slice(since).findLast((x) => x.to === to);
    return m && /\b(\d{6})\b/.exec(m.body)?.[1];
  };
  const wrongTo = (code: string) => (code === "000000" ? "111111" : "000000");

  /** The owner's account as the customer's backend made it: a login at home consumed, email and phone set with the secret. */
  async function ownerAccount(user: string): Promise<void> {
    const first = await client("login", { user }, { seed: `${user}-home`, ip: HOMES[user] as string });
    expect((await read(first.evaluation_id)).verdict).toBe("allow");
    const consumed = await t.app.inject({ method: "POST", url: `/v3/evaluations/${first.evaluation_id}/consume`, headers: t.auth });
    expect(consumed.statusCode, consumed.body).toBe(200);
    const update = await t.app.inject({
      method: "POST",
      url: `/v3/user/${user}/update`,
      headers: t.auth,
      payload: { email: `${user}@owner.example`, phone: PHONE },
    });
    expect(update.statusCode, update.body).toBe(204);
  }
  /** The owner's own login from a new laptop in Tokyo: challenged by the default policy, for another reason than contacts. */
  async function ownerAbroad(user: string): Promise<Link> {
    const ev = await client("login", { user }, { seed: `${user}-laptop`, ip: TOKYO });
    const stored = await read(ev.evaluation_id);
    expect(stored.verdict).toBe("challenge");
    expect(stored.reasons).not.toContain("too_many_challenges");
    expect(stored.reasons).not.toContain("contact_mismatch");
    return link(ev.redirect);
  }
  /**
   * A stranger's login naming the owner and claiming another email: challenged only for that claim — unless the owner
   * was just let in far away (`onlyClaim` false: then impossible travel challenges it too).
   */
  async function strangerClaim(user: string, ip: string, onlyClaim = true): Promise<Link> {
    const ev = await client("login", { user, email: "attacker@evil.example" }, { ip });
    const reasons = (await read(ev.evaluation_id)).reasons;
    const c = challenged(ev);
    if (onlyClaim) {
      expect(reasons).toEqual(["contact_mismatch"]);
      expect((await t.services.repos.challenges.findById(c.id))?.contact_only).toBe(1);
    } else {
      // Challenged without the claim too: a challenge like any other, counted against its network's pending ones.
      expect(reasons).toContain("contact_mismatch");
      expect((await t.services.repos.challenges.findById(c.id))?.contact_only).toBe(0);
    }
    return c;
  }
  /** The owner's code mailed since `since`, verified from `ip`: answers the verify response. */
  async function ownerVerifies(user: string, c: Link, ip: string, since: number) {
    const code = codeFrom(await smtp.next(`${user}@owner.example`, { since }));
    return verify(c, ip, code);
  }

  describe("lock-out: a stranger spends the stranger's budgets, never the owner's", () => {
    it("three logins claiming other emails leave the owner's own challenge from a new laptop open; they count against no one else", async () => {
      await ownerAccount("lock_pending");
      for (const n of [1, 2, 3]) await strangerClaim("lock_pending", STRANGER(0, n));
      // Before: denied, too_many_challenges (3 pending per user).
      const owner = await ownerAbroad("lock_pending");
      const since = smtp.mails.length;
      expect((await send(owner, TOKYO)).statusCode).toBe(200);
      const verified = await ownerVerifies("lock_pending", owner, TOKYO, since);
      expect(verified.statusCode, verified.body).toBe(200);
      expect(strict(ChallengeView).parse(verified.json()).challenge.status).toBe("verified");
    });

    it("five sends through a stranger's links spend the stranger's network's budget for the inbox; the owner's send still goes", async () => {
      await ownerAccount("lock_recipient");
      const owner = await ownerAbroad("lock_recipient");
      const links = [await strangerClaim("lock_recipient", STRANGER(1, 1)), await strangerClaim("lock_recipient", STRANGER(1, 2))];
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const c = links[i < 3 ? 0 : 1] as Link;
        if (i !== 0 && i !== 3) await waitOutCooldown(c);
        statuses.push((await send(c, STRANGER(1, 1))).statusCode);
      }
      // Five codes to the owner's inbox from the stranger's network, then 429 there, whichever of its browsers asks.
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // Before: 429 for about 70 minutes (5 an hour per recipient).
      const since = smtp.mails.length;
      const sent = await send(owner, TOKYO);
      expect(sent.statusCode, sent.body).toBe(200);
      expect((await ownerVerifies("lock_recipient", owner, TOKYO, since)).statusCode).toBe(200);
      // The stranger's next browser on that network: refused still.
      const fresh = await strangerClaim("lock_recipient", STRANGER(1, 3), false);
      expect((await send(fresh, STRANGER(1, 3))).statusCode).toBe(429);
    });

    it("ten sends across email and text through a stranger's links spend its budget for the user; the owner's text still goes", async () => {
      await ownerAccount("lock_user");
      const owner = await ownerAbroad("lock_user");
      const [byMail, byText] = [await strangerClaim("lock_user", STRANGER(2, 1)), await strangerClaim("lock_user", STRANGER(2, 2))] as [
        Link,
        Link,
      ];
      const statuses: number[] = [];
      for (const [c, channel] of [
        [byMail, "email"],
        [byText, "text"],
      ] as const) {
        for (let i = 0; i < 5; i++) {
          if (i > 0) await waitOutCooldown(c);
          statuses.push((await send(c, STRANGER(2, 1), channel)).statusCode);
        }
      }
      expect(statuses).toEqual(Array(10).fill(200));
      // Before: 429 for about 27 hours (10 a day per user).
      const since = sms.messages.length;
      const sent = await send(owner, TOKYO, "text");
      expect(sent.statusCode, sent.body).toBe(200);
      const code = textedCode(PHONE, since);
      expect(code).toBeDefined();
      expect((await verify(owner, TOKYO, code as string)).statusCode).toBe(200);
      // The stranger's eleventh, from a fresh browser on its network: refused (10 a day for the user from there).
      expect((await send(await strangerClaim("lock_user", STRANGER(2, 3), false), STRANGER(2, 3), "text")).statusCode).toBe(429);
    });

    it("ten wrong codes through a stranger's links spend its guesses for the user; the owner's right code still verifies", async () => {
      await ownerAccount("lock_guess");
      const owner = await ownerAbroad("lock_guess");
      const statuses: number[] = [];
      for (const n of [1, 2]) {
        const c = await strangerClaim("lock_guess", STRANGER(3, n));
        const since = smtp.mails.length;
        expect((await send(c, STRANGER(3, n))).statusCode).toBe(200);
        const wrong = wrongTo(codeFrom(await smtp.next("lock_guess@owner.example", { since })));
        for (let i = 0; i < 5; i++) statuses.push((await verify(c, STRANGER(3, n), wrong)).statusCode);
      }
      // Five per challenge (the fifth fails it), ten in all; the next guess from that network is refused unjudged.
      expect(statuses).toEqual([400, 400, 400, 400, 409, 400, 400, 400, 400, 409]);
      const third = await strangerClaim("lock_guess", STRANGER(3, 3));
      const since = smtp.mails.length;
      expect((await send(third, STRANGER(3, 3))).statusCode).toBe(200);
      const right = codeFrom(await smtp.next("lock_guess@owner.example", { since }));
      expect((await verify(third, STRANGER(3, 3), wrongTo(right))).statusCode).toBe(429);
      expect((await verify(third, STRANGER(3, 3), right)).statusCode).toBe(429);
      // Before: the owner's right code answered 429 for an hour (10 wrong codes an hour per user).
      const ownSince = smtp.mails.length;
      expect((await send(owner, TOKYO)).statusCode).toBe(200);
      const verified = await ownerVerifies("lock_guess", owner, TOKYO, ownSince);
      expect(verified.statusCode, verified.body).toBe(200);
    });

    it("another project's backend raising challenges for the owner's inbox spends none of this project's backend's budgets", async () => {
      const inbox = "shared.owner@inbox.example";
      const other = { authorization: `Bearer ${t.otherSecret}` };
      const policy = await t.app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: other,
        payload: {
          name: "Challenge verify_test (test)",
          actions: ["verify_test"],
          priority: 1000,
          conditions: { all: [] },
          verdict: "challenge",
          challenge: { type: "account_takeover", channels: ["email"] },
        },
      });
      expect(policy.statusCode, policy.body).toBe(201);
      /** A backend evaluation naming no browser (no `evaluation`, no `fingerprint`), challenged: its link. */
      const backend = async (headers: Record<string, string>, user: string): Promise<Link> => {
        const r = await t.app.inject({
          method: "POST",
          url: "/v3/evaluate/verify_test",
          headers,
          payload: { user, email: inbox, ip: "203.0.113.77" },
        });
        expect(r.statusCode, r.body).toBe(200);
        return challenged(r.json());
      };
      // The other project's backend: five codes to the inbox (each on a new challenge), then its own 429.
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await send(await backend(other, "elsewhere"), STRANGER(5, i + 1))).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // This project's backend challenges its own user with that inbox. Before: 429 for about an hour (one budget,
      // "backend", for every environment's backend evaluations naming no browser).
      const owner = await backend(t.auth, "shared_owner");
      const since = smtp.mails.length;
      const sent = await send(owner, TOKYO);
      expect(sent.statusCode, sent.body).toBe(200);
      expect((await verify(owner, TOKYO, codeFrom(await smtp.next(inbox, { since })))).statusCode).toBe(200);
    });

    it("strangers on the owner's own network spend that network's budgets; the owner's signed-in browser and a browser with a user_token keep theirs", async () => {
      await ownerAccount("lock_home");
      const homeIp = HOMES.lock_home as string;
      const near = "81.2.69.7"; // the owner's /24 (a shared building, a café)
      // Three challenges from strangers' browsers there: the network's pending budget; a fourth browser is denied.
      const [s0, s1, s2] = [
        challenged(await client("verify_test", { user: "lock_home" }, { ip: near })),
        challenged(await client("verify_test", { user: "lock_home" }, { ip: near })),
        challenged(await client("verify_test", { user: "lock_home" }, { ip: near })),
      ];
      const fourth = await client("verify_test", { user: "lock_home" }, { ip: "81.2.69.8" });
      expect((await read(fourth.evaluation_id)).reasons).toContain("too_many_challenges");
      // Ten wrong codes (two challenges failed), then five codes to the owner's inbox in all.
      for (const c of [s0, s1]) {
        const since = smtp.mails.length;
        expect((await send(c, near)).statusCode).toBe(200);
        const wrong = wrongTo(codeFrom(await smtp.next("lock_home@owner.example", { since })));
        for (let g = 0; g < 5; g++) await verify(c, near, wrong);
      }
      const statuses: number[] = [];
      for (let k = 0; k < 4; k++) {
        if (k > 0) await waitOutCooldown(s2);
        statuses.push((await send(s2, near)).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await verify(s2, near, "123456")).statusCode).toBe(429);
      // The owner's own browser at home, signed in (its login was consumed): challenged, a code, verified.
      const home = challenged(await client("verify_test", { user: "lock_home" }, { seed: "lock_home-home", ip: homeIp }));
      let since = smtp.mails.length;
      expect((await send(home, homeIp)).statusCode).toBe(200);
      expect((await ownerVerifies("lock_home", home, homeIp, since)).statusCode).toBe(200);
      // A new browser the backend vouches for with a user_token, on that network: budgets of its own too.
      const secret = (await t.services.identity.rotate(t.project.id, "development")) as string;
      const vouched = "81.2.69.9";
      const signed = challenged(
        await client("verify_test", { user: "lock_home", user_token: await userToken(secret, "lock_home") }, { ip: vouched }),
      );
      since = smtp.mails.length;
      expect((await send(signed, vouched)).statusCode).toBe(200);
      expect((await ownerVerifies("lock_home", signed, vouched, since)).statusCode).toBe(200);
    });
  });

  describe("pumping: one inbox is one recipient, sends capped per client and per project, texts where allowed", () => {
    it("sign-ups flagged as automation with twelve spellings of one Gmail inbox get five codes there from one address", async () => {
      const ip = "198.51.100.20";
      const spellings = [
        "j.doe",
        "jd.oe",
        "jdoe+1",
        "j.d.oe",
        "jdo.e",
        "jdoe+2",
        "j.doe+3",
        "jd.o.e",
        "J.Doe",
        "jdoe+pump",
        "j.do.e",
        "jdoe",
      ];
      const since = smtp.mails.length;
      const statuses: number[] = [];
      for (const [i, local] of spellings.entries()) {
        const ev = await client("signup", { user: `spell_${kind}_${i}`, email: `${local}@gmail.com` }, { ip, automation: true });
        expect((await read(ev.evaluation_id)).policy?.name).toBe("Challenge automation");
        statuses.push((await send(challenged(ev), ip)).statusCode);
      }
      // Before: twelve codes in seconds.
      expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
      expect(smtp.mails.slice(since).filter((m) => m.to.toLowerCase().includes("@gmail.com"))).toHaveLength(5);
    });

    it("spellings of one Gmail inbox whose domain is written in Unicode forms the mailer sends to gmail.com are one recipient", async () => {
      const ip = "198.51.101.20"; // another /24 than the test above: its budget for jdoe@gmail.com is spent
      // Fullwidth, circled and upper-case fullwidth letters, a soft hyphen: the mailer maps each domain as IDNA does
      // (UTS #46) and delivers to gmail.com or googlemail.com, where Gmail's dots and "+tag" reach the same inbox.
      const spellings = [
        "jane.roe@ｇｍａｉｌ.com",
        "janeroe@ⓖⓜⓐⓘⓛ.com",
        "jane.roe+1@gma\u00adil.com",
        "j.aneroe@ＧＭＡＩＬ.ＣＯＭ",
        "janeroe@ｇｏｏｇｌｅｍａｉｌ.com",
        "jan.eroe@ｇｍａｉｌ.com",
        "janeroe@gmail.com",
      ];
      const since = smtp.mails.length;
      const statuses: number[] = [];
      for (const [i, email] of spellings.entries()) {
        const ev = await client("signup", { user: `idna_${kind}_${i}`, email }, { ip, automation: true });
        statuses.push((await send(challenged(ev), ip)).statusCode);
      }
      const delivered = smtp.mails.slice(since).flatMap((m) => m.rcpt);
      // What reached the mail server: all to one Gmail inbox.
      expect(delivered.length).toBeGreaterThan(0);
      for (const to of delivered) expect(to).toMatch(/^[.a-z+1]+@(gmail|googlemail)\.com$/i);
      // Before: seven codes (each spelling its own recipient, its dots and tags counted apart).
      expect(statuses).toEqual([...Array(5).fill(200), 429, 429]);
      expect(delivered).toHaveLength(5);
    });

    it("sub-addresses of one inbox at a company's own domain are one recipient: five codes there from one address", async () => {
      const ip = "198.51.102.20";
      const statuses: number[] = [];
      // Postfix, Exchange Online, Google Workspace and Fastmail deliver "name+anything" to "name" on any domain.
      for (let i = 0; i < 7; i++) {
        const email = i === 6 ? "Pat.Lee@corp.example" : `pat.lee+${i}@corp.example`;
        const ev = await client("signup", { user: `plus_${kind}_${i}`, email }, { ip, automation: true });
        statuses.push((await send(challenged(ev), ip)).statusCode);
      }
      // Before: seven codes to one inbox (each tag its own recipient).
      expect(statuses).toEqual([...Array(5).fill(200), 429, 429]);
    });

    it("a household of two Gmail users on one address gets both their codes", async () => {
      const ip = "198.51.100.30";
      for (const who of ["alice.martin", "bob.martin"]) {
        const c = challenged(await client("verify_test", { user: `${who}_${kind}`, email: `${who}@gmail.com` }, { ip }));
        const since = smtp.mails.length;
        expect((await send(c, ip)).statusCode).toBe(200);
        expect((await verify(c, ip, codeFrom(await smtp.next(`${who}@gmail.com`, { since })))).statusCode).toBe(200);
      }
    });

    it("one address gets at most CODE_SENDS_PER_IP codes an hour, whatever the inboxes (20 by default)", async () => {
      const ip = "198.51.100.40";
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) {
        const ev = await client("signup", { user: `pump_ip_${kind}_${i}`, email: `box${i}@pump${i}.example` }, { ip, automation: true });
        statuses.push((await send(challenged(ev), ip)).statusCode);
      }
      // Before: every one (120 in 23 s).
      expect(statuses).toEqual([...Array(20).fill(200), 429]);
    });

    it("a company of many people behind one IPv6 /64 each get a code up to the per-IP cap; the next /64 is another client", async () => {
      const statuses: number[] = [];
      let last: { statusCode: number; body: string } | undefined;
      for (let i = 1; i <= 21; i++) {
        const ip = `2001:db8:c0:ffee::${i.toString(16)}`;
        const c = challenged(await client("verify_test", { user: `emp_${kind}_${i}`, email: `emp${i}@company.example` }, { ip }));
        last = await send(c, ip);
        statuses.push(last.statusCode);
      }
      // Every address of a /64 is one client: twenty people got their codes, the twenty-first waits.
      expect(statuses).toEqual([...Array(20).fill(200), 429]);
      expect(strict(ErrorBody).parse(JSON.parse(last?.body ?? "{}")).error.code).toBe("rate_limited");
      const next = "2001:db8:c0:fff0::1";
      const c = challenged(await client("verify_test", { user: `emp_${kind}_next`, email: "next@company.example" }, { ip: next }));
      expect((await send(c, next)).statusCode).toBe(200);
    });

    it("a send the provider failed does not spend the budgets: after five failed emails and texts the owner's code goes", async () => {
      await ownerAccount("fail_user");
      const seed = "fail_user-home";
      const ip = HOMES.fail_user as string;
      smtp.refuse = true;
      sms.state.down = true;
      const statuses: number[] = [];
      try {
        for (let i = 0; i < 10; i++) {
          // The owner's own browser each time: a new challenge supersedes the last (the 30 s wait is per challenge).
          const c = challenged(await client("verify_test", { user: "fail_user" }, { seed, ip }));
          statuses.push((await send(c, ip, i < 5 ? "email" : "text")).statusCode);
        }
      } finally {
        smtp.refuse = false;
        sms.state.down = false;
      }
      expect(statuses).toEqual(Array(10).fill(502));
      // Before: 429 (five an hour to the address, ten a day for the user, failures counted).
      const mail = challenged(await client("verify_test", { user: "fail_user" }, { seed, ip }));
      const since = smtp.mails.length;
      expect((await send(mail, ip)).statusCode).toBe(200);
      expect((await ownerVerifies("fail_user", mail, ip, since)).statusCode).toBe(200);
      const text = challenged(await client("verify_test", { user: "fail_user" }, { seed, ip }));
      const textSince = sms.messages.length;
      expect((await send(text, ip, "text")).statusCode).toBe(200);
      expect(textedCode(PHONE, textSince)).toBeDefined();
    });

    it("with sms_countries set, texts to numbers of other countries are refused naming channel; an allowed one goes", async () => {
      const owner = await operator(t, `sms-${kind}@example.com`, "owner", [t.project.id]);
      const dev = t.project.environments.development.id;
      const bad = await consoleCall(t, owner, dev, "PATCH", "/v3/settings", { sms_countries: ["FR", "ZZ"] });
      expect(bad.statusCode).toBe(400);
      expect(strict(ErrorBody).parse(bad.json()).error.param).toBe("sms_countries.1");
      const set = await consoleCall(t, owner, dev, "PATCH", "/v3/settings", { sms_countries: ["fr", "BE"] });
      expect(set.statusCode, set.body).toBe(200);
      expect(strict(EnvironmentSettings).parse(set.json()).sms_countries).toEqual(["FR", "BE"]);
      try {
        const ip = "198.51.100.50";
        const since = sms.messages.length;
        // Sign-ups flagged as automation naming premium-rate and foreign numbers of the attacker's choice.
        for (const phone of ["+447400123456", "+14155550199", "+2250701234567", "+88213400123"]) {
          const ev = await client("signup", { user: `toll_${kind}_${phone.slice(1)}`, phone }, { ip, automation: true });
          const r = await send(challenged(ev), ip, "text");
          // Before: 200, a text to each.
          expect(r.statusCode, `${phone}: ${r.body}`).toBe(400);
          const error = strict(ErrorBody).parse(r.json()).error;
          expect(error.param).toBe("channel");
          expect(error.message).toContain("sms_countries");
        }
        expect(sms.messages.slice(since)).toEqual([]);
        // A French number: the text goes.
        const ev = await client("signup", { user: `toll_${kind}_fr`, phone: "+33698765432" }, { ip, automation: true });
        expect((await send(challenged(ev), ip, "text")).statusCode).toBe(200);
        expect(sms.messages.slice(since).map((m) => m.to)).toEqual(["+33698765432"]);
      } finally {
        // null: every country again.
        const cleared = await consoleCall(t, owner, dev, "PATCH", "/v3/settings", { sms_countries: null });
        expect(cleared.json().sms_countries).toBeUndefined();
      }
    });
  });
});

describeStores("the per-project send cap on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0", TRUST_PROXY: "1", CODE_SENDS_PER_PROJECT: "3", CHALLENGE_IP_RATE_LIMIT: "100000" });
  });
  afterAll(async () => t?.close());

  it("a project sends at most CODE_SENDS_PER_PROJECT codes an hour, however many addresses ask", async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) {
      const ip = `203.0.113.${i}`;
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/signup",
        headers: { "x-forwarded-for": ip },
        payload: {
          client_id: t.clientId,
          user: `proj_${i}`,
          email: `proj${i}@pump.example`,
          signals: { components: fakeComponents(`proj-${i}`), visitor_token: `tok-proj-${i}-xxxxxxxx`, automation: { webdriver: true } },
        },
      });
      const url = new URL(r.json().redirect);
      const sent = await t.app.inject({
        method: "POST",
        url: `/v3/challenges/${url.searchParams.get("challenge")}/send`,
        headers: { "x-challenge-token": url.searchParams.get("token") ?? "", "x-forwarded-for": ip },
        payload: { channel: "email" },
      });
      statuses.push(sent.statusCode);
    }
    // In development without SMTP the codes go to the dev outbox: sent all the same.
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describeStores("sms_countries through the CLI on %s", (kind) => {
  const saved = { ...process.env };
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase(kind);
    Object.assign(process.env, { NODE_ENV: "test", LOG_LEVEL: "silent", BOOTSTRAP_PROJECT: "0", ...db.env });
  });
  afterAll(async () => {
    process.env = { ...saved };
    await db?.drop();
  });

  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
    const error = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
    try {
      return { code: await main(args), stdout: out.join("\n"), stderr: err.join("\n") };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  }

  it("projects settings --sms-countries sets, validates in one line naming the flag, and `all` clears", async () => {
    const project = JSON.parse((await cli(["projects", "create", "--name", "SMS", "--json"])).stdout) as CreatedProject;
    const set = await cli(["projects", "settings", project.id, "--env", "production", "--sms-countries", "fr, BE"]);
    expect(set).toMatchObject({ code: 0, stdout: "Texts from production go to: FR, BE" });
    const bad = await cli(["projects", "settings", project.id, "--env", "production", "--sms-countries", "FR,ZZ"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "tessera: --sms-countries: not a country with phone numbers (ISO 3166 alpha-2): ZZ (tessera projects settings --help)",
    );
    /** The production environment's settings as its secret key reads them, on a server started now. */
    const settings = async () => {
      const services = await createServices(testConfig({ ...db.env, WORKERS: "0" }));
      const app = await buildApp(services, { logger: false });
      try {
        const r = await app.inject({
          method: "GET",
          url: "/v3/settings",
          headers: { authorization: `Bearer ${project.environments.production.secret}` },
        });
        return strict(EnvironmentSettings).parse(r.json());
      } finally {
        await app.close();
        await services.close();
      }
    };
    expect((await settings()).sms_countries).toEqual(["FR", "BE"]);
    expect((await cli(["projects", "settings", project.id, "--env", "production", "--sms-countries", "all"])).code).toBe(0);
    expect((await settings()).sms_countries).toBeUndefined();
  });
});
