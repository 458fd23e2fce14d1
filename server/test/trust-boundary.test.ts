// The trust boundary (docs/security.md): each attack the issue replayed from outside, with only what an attacker
// has (the public client id, a victim's user id), as an HTTP regression test on both stores. Codes travel over real
// SMTP to the in-process server of smtp.ts; the client IP comes from X-Forwarded-For (a trusted proxy). The CLI and
// the first start, as child processes, are in trust-boundary-process.test.ts.
import { createHash, createHmac } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ChallengeView, ErrorBody, Evaluation } from "@tessera/sdk/contract";
import { userToken } from "@tessera/sdk/node";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { createServices, type Services } from "../src/services.js";
import { openStore } from "../src/store/db.js";
import type { CreatedProject } from "../src/store/projects.js";
import {
  BROWSER_UA,
  describeStores,
  fakeComponents,
  freshDatabase,
  startTestApp,
  type TestApp,
  type TestDatabase,
  testConfig,
} from "./helpers.js";
import { codeFrom, startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";
import { eventually, type Receiver, startReceiver } from "./webhook-receiver.js";

describeStores("trust boundary on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  let ipSeq = 0;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp(kind, {
      WORKERS: "0",
      TRUST_PROXY: "1",
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Tessera <no-reply@test.local>",
      CLIENT_RATE_LIMIT: "100000",
      CHALLENGE_IP_RATE_LIMIT: "100000",
      // Lower than the default 10 a day so that the per-user cap shows before the per-recipient one (5 an hour).
      CODE_SENDS_PER_USER: "4",
      // Every send here comes through a challenge link from the test's one address: the per-IP cap is budgets.test.ts's.
      CODE_SENDS_PER_IP: "100000",
    });
    // Every `pump_test` evaluation is challenged: the attacks on code delivery need a challenge to abuse.
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Challenge pump_test (test)",
        actions: ["pump_test"],
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
  });

  const env = () => t.project.environments.development.id;
  /** A fresh public IP-looking address per call (documentation ranges), so that nothing counts across cases. */
  const ip = () => `198.51.100.${(++ipSeq % 250) + 1}`;
  const read = async (id: string) =>
    strict(Evaluation).parse((await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth })).json());
  /** A client call as a browser (or an attacker's script) makes it: public client id, own browser, own IP. */
  const client = (path: string, body: Record<string, unknown>, opts: { ip?: string; seed?: string } = {}) => {
    const seed = opts.seed ?? `seed-${++ipSeq}`;
    return t.app.inject({
      method: "POST",
      url: `/v3/client/${path}`,
      headers: { "x-forwarded-for": opts.ip ?? ip() },
      payload: {
        client_id: t.clientId,
        ...body,
        signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx`, url: "https://app.example.com/login" },
      },
    });
  };
  const asChallenge = (redirect: string | undefined) => {
    const url = new URL(redirect ?? "");
    return { id: url.searchParams.get("challenge") ?? "", headers: { "x-challenge-token": url.searchParams.get("token") ?? "" } };
  };

  /** The code mailed after a send, or undefined when none reached `to` since `since`. */
  const mailTo = (to: string, since: number) => smtp.mails.slice(since).find((m) => m.to.includes(to));
  const send = (c: { id: string; headers: Record<string, string> }, channel = "email") =>
    t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/send`, headers: c.headers, payload: { channel } });
  /** The owner's account as the customer's backend created it: email and phone set with the secret. */
  async function ownerAccount(user: string, seed: string, home: string): Promise<void> {
    const first = await client("evaluate/login", { user }, { seed, ip: home });
    expect(first.statusCode, first.body).toBe(200);
    // The password was right: the backend consumes the login, which makes the owner's browser and home theirs.
    const consumed = await t.app.inject({ method: "POST", url: `/v3/evaluations/${first.json().evaluation_id}/consume`, headers: t.auth });
    expect(consumed.statusCode, consumed.body).toBe(200);
    const update = await t.app.inject({
      method: "POST",
      url: `/v3/user/${user}/update`,
      headers: t.auth,
      payload: { email: `${user}@owner.example`, phone: "+33612345678" },
    });
    expect(update.statusCode, update.body).toBe(204);
  }

  describe("ATO through the code destination: contacts are the backend's", () => {
    it("a login for the victim claiming the attacker's email leaves the stored email alone; the code goes to the owner", async () => {
      await ownerAccount("ato_victim", "ato-owner", "203.0.113.10");
      // The attacker: the victim's user id (and password), their own browser, IP and mailbox.
      const r = await client("evaluate/login", { user: "ato_victim", email: "attacker@evil.example" }, { seed: "ato-attacker" });
      expect(r.statusCode, r.body).toBe(200);
      const ev = await read(r.json().evaluation_id);
      expect(ev.verdict).toBe("challenge");
      expect(ev.user?.email).toBe("ato_victim@owner.example");
      expect(ev.checks?.contact_mismatch).toBe(true);
      expect(ev.risks?.find((x) => x.name === "ato")?.indicators).toContain("contact_mismatch");
      expect((await t.services.repos.users.findByExternal(env(), "ato_victim"))?.email).toBe("ato_victim@owner.example");

      const c = asChallenge(r.json().redirect);
      const since = smtp.mails.length;
      expect((await send(c)).statusCode).toBe(200);
      expect(await smtp.next("ato_victim@owner.example", { since })).toBeDefined();
      expect(mailTo("attacker@evil.example", since)).toBeUndefined();
      // Without the code the attacker cannot complete; the backend sees no completed challenge.
      const done = await t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/complete`, headers: c.headers, payload: {} });
      expect(done.statusCode).toBe(409);
      expect((await read(ev.id)).challenge?.status).not.toBe("completed");
    });

    it("a login from the owner's own browser and IP that claims another phone is challenged, and texts nobody new", async () => {
      await ownerAccount("ato_same", "ato-same", "203.0.113.11");
      const r = await client("evaluate/login", { user: "ato_same", phone: "+33698765432" }, { seed: "ato-same", ip: "203.0.113.11" });
      const ev = await read(r.json().evaluation_id);
      expect(ev.checks).toMatchObject({ contact_mismatch: true, is_new_fingerprint: false, is_new_ip: false });
      expect(ev.verdict).toBe("challenge");
      expect((await t.services.repos.users.findByExternal(env(), "ato_same"))?.phone).toBe("+33612345678");
    });

    it("the same on access: the sharing challenge's code goes to the owner, so the attacker cannot kick the owner's devices", async () => {
      await ownerAccount("share_victim", "share-1", "203.0.113.12");
      // The owner signs in on two more browsers (the backend consumes each login): three devices of theirs.
      for (const seed of ["share-2", "share-3"]) {
        const login = await client("evaluate/login", { user: "share_victim" }, { seed, ip: "203.0.113.12" });
        expect(login.statusCode).toBe(200);
        const consumed = await t.app.inject({
          method: "POST",
          url: `/v3/evaluations/${login.json().evaluation_id}/consume`,
          headers: t.auth,
        });
        expect(consumed.statusCode, consumed.body).toBe(200);
      }
      // A fourth device, the attacker's, asks for access with their own email: over the default limit of 3.
      const r = await client("evaluate/access", { user: "share_victim", email: "attacker@evil.example" }, { seed: "share-attacker" });
      const ev = await read(r.json().evaluation_id);
      expect(ev.challenge?.type).toBe("account_sharing");
      const c = asChallenge(r.json().redirect);
      const since = smtp.mails.length;
      expect((await send(c)).statusCode).toBe(200);
      expect(await smtp.next("share_victim@owner.example", { since })).toBeDefined();
      expect(mailTo("attacker@evil.example", since)).toBeUndefined();
      const devices = (await t.app.inject({ method: "GET", url: "/v3/user/share_victim/devices", headers: t.auth })).json() as {
        id: string;
        status: string;
      }[];
      const kick = await t.app.inject({
        method: "POST",
        url: `/v3/challenges/${c.id}/kick`,
        headers: c.headers,
        payload: { device: devices[0]?.id },
      });
      expect(kick.statusCode).toBe(409);
      const after = (await t.app.inject({ method: "GET", url: "/v3/user/share_victim/devices", headers: t.auth })).json() as {
        status: string;
      }[];
      expect(after.filter((d) => d.status === "attached")).toHaveLength(3);
    });

    it("a user seen for the first time takes the contacts of the client evaluation that creates it", async () => {
      const r = await client("evaluate/signup", { user: "fresh_user", email: "fresh@new.example" });
      expect((await read(r.json().evaluation_id)).user?.email).toBe("fresh@new.example");
    });
  });

  describe("client attach and detach: a public client id cannot link or unlink someone else's browser", () => {
    let secret = "";
    beforeAll(async () => {
      secret = (await t.services.identity.rotate(t.project.id, "development")) ?? "";
      expect(secret).toMatch(/^idsec_/);
    });
    const deviceList = async (user: string) =>
      (await t.app.inject({ method: "GET", url: `/v3/user/${user}/devices`, headers: t.auth })).json() as { id: string; status: string }[];

    it("attach without the backend's user_token is a 403, so 40 attaches neither join nor lock out the owner's account", async () => {
      await ownerAccount("attach_victim", "attach-owner", "203.0.113.60");
      for (let i = 0; i < 40; i++) {
        const r = await client(
          "devices/attach",
          { user: "attach_victim", ...(i % 2 ? { user_token: "forged-token" } : {}) },
          { seed: `attach-${i}` },
        );
        expect(r.statusCode).toBe(403);
        expect(strict(ErrorBody).parse(r.json()).error).toMatchObject({ code: "identity_verification_required", param: "user_token" });
      }
      expect((await deviceList("attach_victim")).filter((d) => d.status === "attached")).toHaveLength(1);
      // The owner's next access is not an account-sharing challenge.
      const access = await client("evaluate/access", { user: "attach_victim" }, { seed: "attach-owner", ip: "203.0.113.60" });
      expect((await read(access.json().evaluation_id)).verdict).toBe("allow");
    });

    it("attach with the token the backend computed for that user (backend client's userToken) attaches this browser", async () => {
      const token = await userToken(secret, "attach_ok");
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const r = await client("devices/attach", { user: "attach_ok", user_token: token }, { seed: "attach-ok" });
      expect(r.statusCode, r.body).toBe(200);
      expect((await deviceList("attach_ok")).map((d) => d.id)).toEqual([r.json().device]);
      // A token for another user does not carry over.
      const other = await client("devices/attach", { user: "attach_victim", user_token: token }, { seed: "attach-ok" });
      expect(other.statusCode).toBe(403);
    });

    it("detach acts only on the device of the caller's exact visitor token, never on a look-alike fingerprint", async () => {
      await ownerAccount("detach_victim", "detach-owner", "203.0.113.61");
      const [victimDevice] = await deviceList("detach_victim");
      // The attacker imitates the victim's browser (same components) with their own visitor token, or none at all.
      const lookalike = await t.app.inject({
        method: "POST",
        url: "/v3/client/devices/detach",
        headers: { "x-forwarded-for": ip() },
        payload: {
          client_id: t.clientId,
          user: "detach_victim",
          signals: { components: fakeComponents("detach-owner"), visitor_token: "tok-attacker-xxxxxxxx" },
        },
      });
      expect(lookalike.statusCode).toBe(404);
      const tokenless = await t.app.inject({
        method: "POST",
        url: "/v3/client/devices/detach",
        headers: { "x-forwarded-for": ip() },
        payload: { client_id: t.clientId, user: "detach_victim", signals: { components: fakeComponents("detach-owner") } },
      });
      expect(tokenless.statusCode).toBe(400);
      expect(strict(ErrorBody).parse(tokenless.json()).error.param).toBe("signals.visitor_token");
      expect((await deviceList("detach_victim")).find((d) => d.id === victimDevice?.id)?.status).toBe("attached");
      // The owner's own browser detaches itself.
      const own = await client("devices/detach", { user: "detach_victim" }, { seed: "detach-owner", ip: "203.0.113.61" });
      expect(own.json()).toEqual({ device: victimDevice?.id, status: "detached" });
    });

    it("the backend attaches and detaches with its secret", async () => {
      const r = await client("evaluate/login", { user: "backend_attach" }, { seed: "backend-attach" });
      const device = (await read(r.json().evaluation_id)).device as string;
      const attached = await t.app.inject({
        method: "POST",
        url: `/v3/devices/${device}/attach`,
        headers: t.auth,
        payload: { user: "backend_other" },
      });
      expect(attached.statusCode, attached.body).toBe(200);
      expect(attached.json()).toMatchObject({ id: device, user: "backend_other", status: "attached" });
      const detached = await t.app.inject({ method: "POST", url: `/v3/devices/${device}/detach`, headers: t.auth });
      expect(detached.json()).toMatchObject({ id: device, status: "detached" });
      const noSecret = await t.app.inject({ method: "POST", url: `/v3/devices/${device}/attach`, payload: { user: "backend_other" } });
      expect(noSecret.statusCode).toBe(401);
    });
  });

  describe("identity verification", () => {
    let secret = "";
    const setMode = (mode: "off" | "optional" | "required") =>
      t.services.repos.projects.updateEnvironmentSettings(t.project.id, "development", { identity_verification: mode });
    beforeAll(async () => {
      secret = (await t.services.identity.rotate(t.project.id, "development")) ?? "";
    });
    afterAll(async () => {
      await setMode("optional");
    });

    it("optional (the default): a valid token marks identity_verified; none or a wrong one is unverified, not refused", async () => {
      const valid = await client("evaluate/login", { user: "iv_user", user_token: await userToken(secret, "iv_user") });
      expect((await read(valid.json().evaluation_id)).checks?.identity_verified).toBe(true);
      const none = await client("evaluate/login", { user: "iv_user" });
      expect((await read(none.json().evaluation_id)).checks?.identity_verified).toBe(false);
      const wrong = await client("evaluate/login", { user: "iv_user", user_token: await userToken(secret, "someone_else") });
      expect(wrong.statusCode).toBe(200);
      expect((await read(wrong.json().evaluation_id)).checks?.identity_verified).toBe(false);
      const server = await t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { user: "iv_user" } });
      expect((await read(server.json().id)).checks?.identity_verified).toBe(true);
    });

    it("required: a client call naming a user without a valid token is a 401; anonymous calls and valid tokens pass", async () => {
      await setMode("required");
      for (const body of [{ user: "iv_req" }, { user: "iv_req", user_token: "bm90LWEtdG9rZW4" }]) {
        const r = await client("evaluate/login", body);
        expect(r.statusCode).toBe(401);
        expect(strict(ErrorBody).parse(r.json()).error).toMatchObject({ code: "invalid_user_token", param: "user_token" });
        expect((await client("devices/detach", body)).statusCode).toBe(401);
      }
      expect((await client("evaluate/visit", {})).statusCode).toBe(200);
      const ok = await client("evaluate/login", { user: "iv_req", user_token: await userToken(secret, "iv_req") });
      expect(ok.statusCode, ok.body).toBe(200);
    });

    it("off: tokens are not looked at, yet attach still needs one; a rotated secret voids the old tokens", async () => {
      await setMode("off");
      const token = await userToken(secret, "iv_off");
      const r = await client("evaluate/login", { user: "iv_off", user_token: token });
      expect((await read(r.json().evaluation_id)).checks?.identity_verified).toBe(false);
      expect((await client("devices/attach", { user: "iv_off" })).statusCode).toBe(403);
      expect((await client("devices/attach", { user: "iv_off", user_token: token })).statusCode).toBe(200);
      await setMode("optional");
      const rotated = (await t.services.identity.rotate(t.project.id, "development")) ?? "";
      expect(rotated).not.toBe(secret);
      expect((await client("devices/attach", { user: "iv_off", user_token: token })).statusCode).toBe(403);
      expect((await client("devices/attach", { user: "iv_off", user_token: await userToken(rotated, "iv_off") })).statusCode).toBe(200);
      secret = rotated;
    });

    it("the identity secret is stored sealed, never in clear", async () => {
      const row = await t.services.repos.db
        .selectFrom("environments")
        .select("identity_secret")
        .where("id", "=", env())
        .executeTakeFirstOrThrow();
      expect(row.identity_secret).toMatch(/^v1\./);
      expect(row.identity_secret).not.toContain(secret.slice(6, 20));
    });
  });

  describe("email/SMS pumping: one code, one recipient", () => {
    it.each([
      ["a list of recipients", "a@pump.example,b@pump.example,c@pump.example"],
      ["a CR-LF Bcc header", "victim@pump.example\r\nBcc: attacker@evil.example"],
      ["a display name", "Victim <victim@pump.example>"],
    ])("a client evaluation with %s in email is a 400 naming email, and no user is created", async (_why, email) => {
      const r = await client("evaluate/login", { user: "pump_list", email });
      expect(r.statusCode, r.body).toBe(400);
      expect(strict(ErrorBody).parse(r.json()).error.param).toBe("email");
      expect(await t.services.repos.users.findByExternal(env(), "pump_list")).toBeUndefined();
    });

    it("the server evaluation and the user update refuse the same addresses and invalid phones, naming the field", async () => {
      const list = "a@pump.example,b@pump.example";
      const server = await t.app.inject({
        method: "POST",
        url: "/v3/evaluate/login",
        headers: t.auth,
        payload: { user: "pump_s", email: list },
      });
      expect(server.statusCode).toBe(400);
      expect(strict(ErrorBody).parse(server.json()).error.param).toBe("email");
      const phone = await client("evaluate/login", { user: "pump_p", phone: "+1415555019" });
      expect(phone.statusCode).toBe(400);
      expect(strict(ErrorBody).parse(phone.json()).error.param).toBe("phone");
      expect((await client("evaluate/login", { user: "pump_u", email: "u@pump.example" })).statusCode).toBe(200);
      const update = await t.app.inject({ method: "POST", url: "/v3/user/pump_u/update", headers: t.auth, payload: { email: list } });
      expect(update.statusCode).toBe(400);
      expect(strict(ErrorBody).parse(update.json()).error.param).toBe("email");
    });

    it("an address list already in the store gets no code: send answers 400 and nothing reaches the mail server", async () => {
      expect((await client("evaluate/login", { user: "pump_old" })).statusCode).toBe(200);
      await t.services.repos.db
        .updateTable("users")
        .set({ email: "a@pump.example,b@pump.example,c@pump.example" })
        .where("environment_id", "=", env())
        .where("external_id", "=", "pump_old")
        .execute();
      const ev = await client("evaluate/pump_test", { user: "pump_old" });
      const c = asChallenge(ev.json().redirect);
      const since = smtp.mails.length;
      const sent = await t.app.inject({
        method: "POST",
        url: `/v3/challenges/${c.id}/send`,
        headers: c.headers,
        payload: { channel: "email" },
      });
      expect(sent.statusCode, sent.body).toBe(400);
      expect(strict(ErrorBody).parse(sent.json()).error.param).toBe("channel");
      expect(smtp.mails.slice(since)).toEqual([]);
      expect(ChallengeView.safeParse(sent.json()).success).toBe(false);
    });
  });

  describe("before verification the challenge link reads masked contacts and no device list", () => {
    it("GET challenge and view with the link show masked contacts; devices answer 403 until a code is verified", async () => {
      await ownerAccount("mask_user", "mask-owner", "203.0.113.50");
      const r = await client("evaluate/pump_test", { user: "mask_user" }, { seed: "mask-attacker" });
      const c = asChallenge(r.json().redirect);
      for (const path of ["", "/view", "/open"]) {
        const res = await t.app.inject({
          method: path === "/open" ? "POST" : "GET",
          url: `/v3/challenges/${c.id}${path}`,
          headers: c.headers,
        });
        expect(res.statusCode, path).toBe(200);
        expect(res.body, path).not.toContain("mask_user@owner.example");
        expect(res.body, path).not.toContain("+33612345678");
        expect(res.body, path).toContain("m******@owner.example");
      }
      const devices = await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}/devices`, headers: c.headers });
      expect(devices.statusCode).toBe(403);
      expect(strict(ErrorBody).parse(devices.json()).error.code).toBe("forbidden");
      // The customer's backend, with its secret, reads both.
      const byBackend = await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}`, headers: t.auth });
      expect(byBackend.json().user.email).toBe("mask_user@owner.example");
      expect((await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}/devices`, headers: t.auth })).statusCode).toBe(200);
      // Once the owner verified the mailed code, the link may list the devices.
      const since = smtp.mails.length;
      expect((await send(c)).statusCode).toBe(200);
      const code = codeFrom(await smtp.next("mask_user@owner.example", { since }));
      expect(
        (await t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/verify`, headers: c.headers, payload: { code } })).statusCode,
      ).toBe(200);
      expect((await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}/devices`, headers: c.headers })).statusCode).toBe(200);
    });
  });

  describe("open redirect: return URLs only on the environment's allowed origins", () => {
    const policy = (action: string, challenge: Record<string, unknown>) =>
      t.app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: t.auth,
        payload: {
          name: `Return URL ${action} (test)`,
          actions: [action],
          priority: 1000,
          conditions: { all: [] },
          verdict: "challenge",
          challenge: { type: "account_sharing", channels: ["email"], ...challenge },
        },
      });
    const viewOf = async (r: Awaited<ReturnType<typeof client>>) => {
      const c = asChallenge(r.json().redirect);
      return strict(ChallengeView).parse(
        (await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}/view`, headers: c.headers })).json(),
      );
    };
    /** A challenged evaluation from a browser that says it is on `url` (signals.url, written by the browser). */
    const evaluateFrom = (action: string, url: string) => {
      const user = `redirect_${++ipSeq}`;
      return t.app.inject({
        method: "POST",
        url: `/v3/client/evaluate/${action}`,
        headers: { "x-forwarded-for": ip() },
        payload: { client_id: t.clientId, user, email: `${user}@owner.example`, signals: { components: fakeComponents(user), url } },
      });
    };

    it("a policy whose success_url or signup_url is elsewhere is refused with 400 naming the field", async () => {
      await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", ["https://app.example.com"]);
      for (const [field, url] of [
        ["success_url", "https://evil.example/welcome"],
        ["success_url", "javascript:alert(document.cookie)"],
        ["signup_url", "https://app.example.com.evil.example/signup"],
        ["success_url", "https://user:pass@app.example.com/welcome"],
      ] as const) {
        const r = await policy("return_write", { [field]: url });
        expect(r.statusCode, url).toBe(400);
        expect(strict(ErrorBody).parse(r.json()).error.param, url).toBe(`challenge.${field}`);
      }
      const ok = await policy("return_write", {
        success_url: "https://app.example.com/welcome",
        signup_url: "http://localhost:3000/signup",
      });
      expect(ok.statusCode, ok.body).toBe(201);
    });

    it("a page URL the browser sends from elsewhere is dropped, not used as the success URL", async () => {
      await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", ["https://app.example.com"]);
      expect((await policy("return_page", {})).statusCode).toBe(201);
      for (const url of ["https://evil.example/phish", "javascript:alert(1)", "data:text/html,<script>alert(1)</script>"]) {
        const view = await viewOf(await evaluateFrom("return_page", url));
        expect(view.success_url, url).toBeUndefined();
      }
      const own = await viewOf(await evaluateFrom("return_page", "https://app.example.com/account"));
      expect(own.success_url).toBe("https://app.example.com/account");
    });

    it("a URL written while its origin was allowed is dropped once the origin is removed", async () => {
      await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", ["https://app.example.com"]);
      expect(
        (await policy("return_later", { success_url: "https://app.example.com/in", signup_url: "https://app.example.com/up" })).statusCode,
      ).toBe(201);
      const before = await viewOf(await evaluateFrom("return_later", "https://app.example.com/account"));
      expect(before).toMatchObject({ success_url: "https://app.example.com/in", signup_url: "https://app.example.com/up" });
      await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", []);
      const later = await viewOf(await evaluateFrom("return_later", "https://app.example.com/account"));
      expect(later.success_url).toBeUndefined();
      expect(later.signup_url).toBeUndefined();
      await t.services.repos.projects.setAllowedOrigins(t.project.id, "development", ["https://app.example.com"]);
    });
  });

  describe("secrets at rest", () => {
    it("a stored code hash is an HMAC under the server key, not the SHA-256 of the code that a database copy reverses", async () => {
      expect((await client("evaluate/login", { user: "hash_user", email: "hash_user@owner.example" })).statusCode).toBe(200);
      const r = await client("evaluate/pump_test", { user: "hash_user" });
      const c = asChallenge(r.json().redirect);
      const since = smtp.mails.length;
      expect((await send(c)).statusCode).toBe(200);
      const code = codeFrom(await smtp.next("hash_user@owner.example", { since }));
      const row = await t.services.repos.challenges.findById(c.id);
      expect(row?.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row?.code_hash).not.toBe(createHash("sha256").update(`${c.id}:${code}`).digest("hex"));
      expect(row?.code_hash).toBe(createHmac("sha256", t.services.keys.codeHash).update(`${c.id}:${code}`).digest("hex"));
    });
  });

  // Counted per source too (the browser that raised the challenge and its network): budgets.test.ts shows that the
  // owner elsewhere keeps theirs; here every attacker's browser is on one /24 (ip() is 198.51.100.x).
  describe("email/SMS pumping: caps per recipient, per user, on pending challenges and on wrong codes", () => {
    it("one inbox gets at most 5 codes an hour from one network, whichever users and challenges ask", async () => {
      const since = smtp.mails.length;
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        // Seven accounts created by the attacker's own client calls, all with the victim's inbox.
        const r = await client("evaluate/pump_test", { user: `inbox_${i}`, email: "inbox@victim.example" });
        statuses.push((await send(asChallenge(r.json().redirect))).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(smtp.mails.slice(since).filter((m) => m.to.includes("inbox@victim.example"))).toHaveLength(5);
    });

    it("one user gets at most CODE_SENDS_PER_USER codes a day across challenges; a refused send carries Retry-After", async () => {
      await ownerAccount("cap_user", "cap-owner", "203.0.113.20");
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof send>> | undefined;
      for (let i = 0; i < 5; i++) {
        // The same browser each time: each new challenge supersedes the last, and the 30 s resend wait is per challenge.
        const r = await client("evaluate/pump_test", { user: "cap_user" }, { seed: "cap-owner", ip: "203.0.113.20" });
        last = await send(asChallenge(r.json().redirect));
        statuses.push(last.statusCode);
      }
      // Emails only: a text goes nowhere without an SMS provider here (502), and a failed send spends no budget.
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      expect(strict(ErrorBody).parse(last?.json()).error.code).toBe("rate_limited");
      expect(Number(last?.headers["retry-after"])).toBeGreaterThan(0);
    });

    it("at most 3 pending challenges per user from one network: the next challenged evaluation is denied, and the owner's is not pushed out", async () => {
      await ownerAccount("pend_user", "pend-owner", "203.0.113.30");
      const owner = await client("evaluate/pump_test", { user: "pend_user" }, { seed: "pend-owner", ip: "203.0.113.30" });
      const ownerChallenge = asChallenge(owner.json().redirect);
      // The attacker from three fresh browsers on one network: three challenges.
      for (const seed of ["pend-a1", "pend-a2", "pend-a3"])
        expect((await client("evaluate/pump_test", { user: "pend_user" }, { seed })).json().redirect).toBeDefined();
      // A fourth fresh browser there: denied, no challenge opened.
      const denied = await client("evaluate/pump_test", { user: "pend_user" }, { seed: "pend-a4" });
      expect(denied.json().redirect).toBeUndefined();
      const ev = await read(denied.json().evaluation_id);
      expect(ev.verdict).toBe("deny");
      expect(ev.reasons).toContain("too_many_challenges");
      expect(ev.challenge).toBeUndefined();
      // The owner's browser components without its visitor token (a look-alike): denied too, nothing superseded.
      const lookalike = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/pump_test",
        headers: { "x-forwarded-for": ip() },
        payload: { client_id: t.clientId, user: "pend_user", signals: { components: fakeComponents("pend-owner") } },
      });
      expect((await read(lookalike.json().evaluation_id)).verdict).toBe("deny");
      const view = strict(ChallengeView).parse(
        (await t.app.inject({ method: "GET", url: `/v3/challenges/${ownerChallenge.id}/view`, headers: ownerChallenge.headers })).json(),
      );
      expect(view.challenge.status).toBe("created");
      // The owner again from their own browser: their old challenge is replaced by a new one, within the cap.
      const again = await client("evaluate/pump_test", { user: "pend_user" }, { seed: "pend-owner", ip: "203.0.113.30" });
      expect(again.json().redirect).toBeDefined();
    });

    it("wrong codes count per user across challenges from one network: past 10 an hour every verify answers 429, even the right code", async () => {
      await ownerAccount("guess_user", "guess-owner", "203.0.113.40");
      const verify = (c: ReturnType<typeof asChallenge>, code: string) =>
        t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/verify`, headers: c.headers, payload: { code } });
      const statuses: number[] = [];
      let right = "";
      let last: ReturnType<typeof asChallenge> | undefined;
      for (let round = 0; round < 3; round++) {
        // A fresh browser each round (the failed challenges stay within the pending cap: failed is not pending).
        const r = await client("evaluate/pump_test", { user: "guess_user" }, { seed: `guess-${round}` });
        last = asChallenge(r.json().redirect);
        const since = smtp.mails.length;
        expect((await send(last)).statusCode).toBe(200);
        right = codeFrom(await smtp.next("guess_user@owner.example", { since }));
        const wrong = right === "000000" ? "111111" : "000000";
        for (let i = 0; i < (round < 2 ? 5 : 1); i++) statuses.push((await verify(last, wrong)).statusCode);
      }
      // Five per challenge (the fifth fails it: 409), ten in all; the eleventh guess is refused before it is judged.
      expect(statuses).toEqual([400, 400, 400, 400, 409, 400, 400, 400, 400, 409, 429]);
      const refused = await verify(last as ReturnType<typeof asChallenge>, right);
      expect(refused.statusCode).toBe(429);
      expect(strict(ErrorBody).parse(refused.json()).error.code).toBe("rate_limited");
    });
  });

  describe("ReDoS: content scoring", () => {
    it("100,000 × 'a' in a comment is scored over its first 20,000 characters: spam after them counts for nothing", async () => {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/evaluate/post_comment",
        headers: t.auth,
        payload: { user: "redos_user", content: { text: `${"a".repeat(99_000)} buy now cheap casino, write to deals@example.com` } },
      });
      expect(r.statusCode, r.body).toBe(200);
      const ev = await read(r.json().id);
      expect(ev.checks).toMatchObject({ content_spam_score: 0, content_has_contact_info: false, content_link_count: 0 });
      const early = await t.app.inject({
        method: "POST",
        url: "/v3/evaluate/post_comment",
        headers: t.auth,
        payload: { user: "redos_user", content: { text: `buy now cheap casino ${"a".repeat(99_000)}` } },
      });
      expect((await read(early.json().id)).checks?.content_spam_score).toBe(60);
    });
  });
});

// SSRF ("Webhook URLs"; docs/security.md): a production server (NODE_ENV=production) against a receiver on this machine. Two
// server instances take turns on one store, as an operator's would: one with WEBHOOK_ALLOW_PRIVATE=1 registers
// endpoints on this machine, the other, without it, must refuse to connect to them (the same check that catches a
// public name re-resolved to an internal address).
describeStores("SSRF on %s", (kind) => {
  let db: TestDatabase;
  let receiver: Receiver;
  let project: CreatedProject;
  const FAST = { WEBHOOK_RETRY_BASE_MS: "30", WEBHOOK_POLL_MS: "20", WEBHOOK_MAX_ATTEMPTS: "1" };

  async function production(env: Record<string, string>): Promise<{ services: Services; app: FastifyInstance; close(): Promise<void> }> {
    const services = await createServices(testConfig({ ...db.env, NODE_ENV: "production", ...FAST, ...env }));
    const app = await buildApp(services, { logger: false });
    await app.ready();
    return {
      services,
      app,
      close: async () => {
        await app.close();
        await services.close();
      },
    };
  }
  const auth = () => ({ authorization: `Bearer ${project.environments.development.secret}` });
  const register = (app: FastifyInstance, url: string) =>
    app.inject({ method: "POST", url: "/v3/webhook-endpoints", headers: auth(), payload: { url, events: ["device.detached"] } });

  beforeAll(async () => {
    db = await freshDatabase(kind);
    receiver = await startReceiver();
    const first = await production({ WORKERS: "0" });
    project = await first.services.repos.projects.create("SSRF");
    await first.close();
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
  });

  it("registration refuses loopback, private, link-local, CGNAT, multicast, unspecified and metadata addresses with invalid_url", async () => {
    const s = await production({ WORKERS: "0" });
    try {
      for (const url of [
        receiver.url, // http://127.0.0.1:<port>/hook
        "https://127.0.0.1/",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.1/",
        "https://192.168.1.10/",
        "https://172.16.0.1/",
        "https://100.64.0.1/",
        "https://[::1]/",
        "https://[fd00:ec2::254]/",
        "https://[::ffff:127.0.0.1]/",
        "https://0.0.0.0/",
        "https://224.0.0.1/",
        "https://2130706433/", // 127.0.0.1 as one number
        "https://localhost/",
        "https://metadata.google.internal/computeMetadata/v1/",
      ]) {
        const r = await register(s.app, url);
        expect(r.statusCode, url).toBe(400);
        expect(strict(ErrorBody).parse(r.json()).error, url).toMatchObject({ code: "invalid_url", param: "url" });
      }
      expect((await register(s.app, "https://hooks.example.com/tessera")).statusCode).toBe(201);
    } finally {
      await s.close();
    }
  });

  it("delivery refuses at connect time a name that resolves to this machine, with a generic error; the flag lifts both", async () => {
    // An instance allowed to reach internal receivers registers two on this machine: by name and by address.
    const allowed = await production({ WORKERS: "0", WEBHOOK_ALLOW_PRIVATE: "1" });
    const byName = `http://localhost:${receiver.port}/hook`;
    for (const url of [byName, receiver.url]) expect((await register(allowed.app, url)).statusCode, url).toBe(201);
    await allowed.close();

    // The same store under an instance without the flag: an event for both endpoints.
    const guarded = await production({ WORKERS: "1" });
    try {
      const envId = project.environments.development.id;
      const ev = await guarded.services.pipeline.evaluate({
        env: (await guarded.services.repos.projects.environmentById(envId)) as NonNullable<
          Awaited<ReturnType<typeof guarded.services.repos.projects.environmentById>>
        >,
        action: "login",
        source: "client",
        ip: "198.51.100.77",
        userAgent: BROWSER_UA,
        headers: {},
        user: "ssrf_user",
        signals: { components: fakeComponents("ssrf"), visitor_token: "tok-ssrf-xxxxxxxx" },
        at: Date.now(),
      });
      const device = ev.evaluation.device as string;
      expect((await guarded.app.inject({ method: "POST", url: `/v3/devices/${device}/detach`, headers: auth() })).statusCode).toBe(200);
      const list = (await guarded.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: auth() })).json().data as {
        id: string;
        url: string;
      }[];
      for (const endpoint of list.filter((e) => e.url.includes(String(receiver.port)))) {
        const failed = await eventually(async () => {
          const r = await guarded.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${endpoint.id}/deliveries`, headers: auth() });
          const d = (r.json().data as { status: string; last_error?: string }[])[0];
          return d?.status === "failed" ? d : undefined;
        }, `the delivery to ${endpoint.url} to fail`);
        expect(failed.last_error, endpoint.url).toBe("address not allowed (loopback, private or internal network)");
        expect(failed.last_error).not.toContain(String(receiver.port));
      }
      expect(receiver.attempts).toBe(0);
    } finally {
      await guarded.close();
    }

    // With WEBHOOK_ALLOW_PRIVATE=1 the same deliveries reach the receiver.
    const lifted = await production({ WORKERS: "1", WEBHOOK_ALLOW_PRIVATE: "1" });
    try {
      const list = (await lifted.app.inject({ method: "GET", url: "/v3/webhook-endpoints", headers: auth() })).json().data as {
        id: string;
      }[];
      for (const endpoint of list) {
        const deliveries = (
          await lifted.app.inject({ method: "GET", url: `/v3/webhook-endpoints/${endpoint.id}/deliveries`, headers: auth() })
        ).json().data as { id: string }[];
        for (const d of deliveries)
          await lifted.app.inject({
            method: "POST",
            url: `/v3/webhook-endpoints/${endpoint.id}/deliveries/${d.id}/retry`,
            headers: auth(),
          });
      }
      await eventually(() => (receiver.received.length >= 2 ? true : undefined), "both deliveries");
    } finally {
      await lifted.close();
    }
  });
});

// The embedded store alone has a file (PostgreSQL's files are the database server's business).
describe("embedded database file", () => {
  it("the database and its WAL are created readable by the server's user only (0600), in a 0700 folder", async () => {
    const t = await startTestApp("sqlite", { WORKERS: "0" });
    try {
      const file = t.services.config.sqlitePath;
      for (const f of [file, `${file}-wal`]) expect((fs.statSync(f).mode & 0o777).toString(8), f).toBe("600");
    } finally {
      await t.close();
    }
    const dir = path.join(os.tmpdir(), `tessera-perm-${process.pid}`);
    const db = openStore({ sqlitePath: path.join(dir, "sub", "tessera.db") });
    try {
      expect((fs.statSync(path.join(dir, "sub")).mode & 0o777).toString(8)).toBe("700");
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
