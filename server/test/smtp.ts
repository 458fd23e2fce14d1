// A real SMTP server on loopback for tests: it receives what the product sends, parses it, and hands it over.
// Tests read verification codes from these mails, never from a function of the product.
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string;
  /** The envelope's recipients (RCPT TO): where the mail server was asked to deliver it. */
  rcpt: string[];
  subject: string;
  text: string;
  html: string;
  parsed: ParsedMail;
}

export interface TestSmtp {
  url: string;
  mails: ReceivedMail[];
  /** Waits for the next mail to `to` (received after `since` mails), up to `timeoutMs`. */
  next(to: string, opts?: { since?: number; timeoutMs?: number }): Promise<ReceivedMail>;
  /** Make the server refuse every message (to test delivery failures). */
  refuse: boolean;
  /** Addresses the server refuses at RCPT TO with 550, as a server with no such mailbox does (a bounce). */
  unknownRecipients: Set<string>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const state = { refuse: false };
  const unknownRecipients = new Set<string>();
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (unknownRecipients.has(address.address.toLowerCase()))
        return callback(Object.assign(new Error("No such user here"), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      if (state.refuse) {
        stream.resume();
        stream.on("end", () => callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 })));
        return;
      }
      simpleParser(stream)
        .then((parsed) => {
          const to = Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(",") : (parsed.to?.text ?? "");
          mails.push({
            to,
            rcpt: session.envelope.rcptTo.map((a) => a.address),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: typeof parsed.html === "string" ? parsed.html : "",
            parsed,
          });
          for (const w of waiters.splice(0)) w();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  const api: TestSmtp = {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    unknownRecipients,
    get refuse() {
      return state.refuse;
    },
    set refuse(v: boolean) {
      state.refuse = v;
    },
    async next(to, opts = {}) {
      const since = opts.since ?? 0;
      const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
      for (;;) {
        const found = mails.slice(since).find((m) => m.to.includes(to));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`No mail to ${to} arrived`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return api;
}

/** The 6-digit code in a verification mail. */
export function codeFrom(mail: ReceivedMail): string {
  const m = /\b(\d{6})\b/.exec(mail.text);
  if (!m?.[1]) throw new Error(`No code in mail: ${mail.text}`);
  return m[1];
}
