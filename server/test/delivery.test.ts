// Code delivery as the user and the backend see it (docs/challenges.md), on both stores: the email in the project's colour and
// logo says why it was sent (by challenge type) and how long the code lasts (CHALLENGE_CODE_TTL_MS); delivery_status
// goes as far as the transport tells — delivered when the mail server took it, bounced when it refused the address,
// and for texts whatever the SMS provider reports to its signed status callback. Real SMTP, a real HTTP SMS provider.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Challenge, ChallengeView, ErrorBody } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { challengedEvaluation, describeStores, startTestApp, type TestApp } from "./helpers.js";
import { startSmtp, type TestSmtp } from "./smtp.js";
import { strict } from "./strict.js";

/** An HTTP SMS provider (SMS_PROVIDER=http): records each JSON message it is asked to send. */
async function startSmsProvider(): Promise<{
  url: string;
  messages: { to: string; body: string; status_callback?: string }[];
  close(): Promise<void>;
}> {
  const messages: { to: string; body: string; status_callback?: string }[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => resolve(body));
    });
  const server: Server = createServer(async (req, res) => {
    messages.push(JSON.parse(await read(req)));
    res.writeHead(202, { "content-type": "application/json" }).end('{"id":"msg_1"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeStores("code delivery on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  let sms: Awaited<ReturnType<typeof startSmsProvider>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    sms = await startSmsProvider();
    t = await startTestApp(kind, {
      SMTP_URL: smtp.url,
      SMS_PROVIDER: "http",
      SMS_API_URL: sms.url,
      CHALLENGE_CODE_TTL_MS: String(2 * 60_000),
      CHALLENGE_IP_RATE_LIMIT: "100000",
      PUBLIC_URL: "https://verify.acme.example",
    });
    await t.services.repos.projects.rename(t.project.id, "Acme Notes");
    await t.services.repos.projects.updateSettings(t.project.id, { color: "#0f766e", logo_url: "https://acme.example/logo.png" });
    for (const [action, type, channels] of [
      ["share", "account_sharing", ["email"]],
      ["text", "account_takeover", ["text"]],
    ] as const) {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/policies",
        headers: t.auth,
        payload: {
          name: action,
          actions: [action],
          priority: 1000,
          conditions: { all: [] },
          verdict: "challenge",
          challenge: { type, channels },
        },
      });
      expect(r.statusCode, r.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await sms?.close();
  });

  const challenged = (action: string, user: string, contact: { email?: string; phone?: string }) =>
    challengedEvaluation(t, action, user, contact);
  const send = (c: { id: string; headers: Record<string, string> }, channel: string, language = "en") =>
    t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/send`, headers: c.headers, payload: { channel, language } });
  const status = async (id: string) =>
    strict(Challenge).parse((await t.app.inject({ method: "GET", url: `/v3/challenges/${id}`, headers: t.auth })).json()).delivery_status;

  it("the email is branded, says why it was sent and how long the code lasts; accepted by the mail server it is delivered", async () => {
    const c = await challenged("share", "sharer", { email: "sharer@example.com" });
    const since = smtp.mails.length;
    const sent = await send(c, "email");
    expect(sent.statusCode, sent.body).toBe(200);
    expect(strict(ChallengeView).parse(sent.json()).challenge.delivery_status).toBe("delivered");
    expect(strict(ChallengeView).parse(sent.json()).code_expires_at).toBeDefined();
    const mail = await smtp.next("sharer@example.com", { since });
    expect(mail.subject).toBe("Your Acme Notes verification code");
    expect(mail.text).toMatch(/^Your Acme Notes account is signed in on more devices than allowed/);
    expect(mail.text).toContain("It expires in 2 minutes.");
    expect(mail.text).not.toContain("password");
    expect(mail.html).toContain("background:#0f766e");
    expect(mail.html).toContain('src="https://acme.example/logo.png"');
    expect(await status(c.id)).toBe("delivered");
  });

  it("an address the mail server refuses is bounced, and the send answers delivery_failed", async () => {
    smtp.unknownRecipients.add("gone@example.com");
    const c = await challenged("share", "gone", { email: "gone@example.com" });
    const sent = await send(c, "email");
    expect(sent.statusCode).toBe(502);
    expect(strict(ErrorBody).parse(sent.json()).error.code).toBe("delivery_failed");
    expect(await status(c.id)).toBe("bounced");
    const view = strict(ChallengeView).parse(
      (await t.app.inject({ method: "GET", url: `/v3/challenges/${c.id}/view`, headers: c.headers })).json(),
    );
    expect(view.delivery_error).toMatch(/refused the address \(550\)/);
  });

  it("a text ends with the WebOTP line; the provider's signed callback moves it to delivered or bounced, nothing else does", async () => {
    const c = await challenged("text", "texter", { phone: "+33612345678" });
    expect((await send(c, "text", "fr")).statusCode).toBe(200);
    expect(await status(c.id)).toBe("sent");
    const message = sms.messages.at(-1)!;
    expect(message.to).toBe("+33612345678");
    const code = /^(\d{6}) est votre code de vérification Acme Notes\. Il expire dans 2 minutes\./.exec(message.body)?.[1];
    expect(code).toBeDefined();
    expect(message.body.split("\n").at(-1)).toBe(`@verify.acme.example #${code}`);
    const callback = new URL(message.status_callback!);
    expect(callback.origin).toBe("https://verify.acme.example");

    const report = (path: string, payload: string, type = "application/json") =>
      t.app.inject({ method: "POST", url: path, headers: { "content-type": type }, payload });
    // Forged: another token, another send, another challenge.
    const forged = [
      callback.pathname.replace(/[^/]+$/, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
      callback.pathname.replace(/\/1\//, "/2/"),
      callback.pathname.replace(c.id, "ch_other"),
    ];
    for (const path of forged) expect((await report(path, '{"status":"delivered"}')).statusCode, path).toBe(404);
    expect(await status(c.id)).toBe("sent");
    // Twilio reports with a form; "sent" changes nothing, "delivered" does.
    expect((await report(callback.pathname, "MessageStatus=sent", "application/x-www-form-urlencoded")).statusCode).toBe(204);
    expect(await status(c.id)).toBe("sent");
    expect((await report(callback.pathname, "MessageStatus=delivered", "application/x-www-form-urlencoded")).statusCode).toBe(204);
    expect(await status(c.id)).toBe("delivered");
    // The same code verifies as usual.
    const verified = await t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/verify`, headers: c.headers, payload: { code } });
    expect(verified.json().challenge.status).toBe("verified");

    const other = await challenged("text", "unreachable", { phone: "+33698765432" });
    await send(other, "text");
    const late = new URL(sms.messages.at(-1)!.status_callback!);
    expect((await report(late.pathname, '{"status":"undelivered"}')).statusCode).toBe(204);
    expect(await status(other.id)).toBe("bounced");
  });
});
