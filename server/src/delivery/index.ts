// Delivery of one-time codes behind one interface (docs/challenges.md): email over SMTP (nodemailer), text through an SMS
// provider's HTTP API, or, in development with no SMTP_URL, the dev outbox. Failures are reported, never swallowed, and
// the state goes as far as the transport tells: an email the mail server accepted is `delivered` at our end, one whose
// recipient it refused for good is `bounced`; a text is `sent` until the provider's status callback says more.
import type { ChallengeType, Channel, Language } from "@tessera/sdk/contract";
import nodemailer, { type Transporter } from "nodemailer";
import type { Config } from "../config.js";
import { ApiError } from "../errors.js";
import { codeEmail, codeSms, type MessageInput } from "./messages.js";

export interface CodeMessage {
  channel: Channel;
  to: string;
  code: string;
  language: Language;
  /** The project's name and branding (name, logo, colour), shown in the message. */
  project: MessageInput["project"];
  /** What the challenge guards against: the message says why it was sent. */
  type?: ChallengeType;
  /** Texts: where the SMS provider reports the delivery (delivery/callbacks.ts). */
  statusCallback?: string;
}

export interface OutboxMessage {
  channel: Channel;
  recipient: string;
  subject: string;
  body: string;
  code: string;
}

export type DeliveryResult = { status: "sent" | "delivered"; outbox?: OutboxMessage } | { status: "failed" | "bounced"; error: string };

/**
 * A send given up because the server is stopping (server.ts): a stalled mail server or SMS provider must not hold the
 * stop past a deployment's grace period (a send stuck on a mail server that never answered held SIGTERM for 58 s).
 * Whether the message went out is unknown; the request answers 503 and the challenge's send is recovered
 * (challenges/recovery.ts).
 */
export class SendAbandoned extends ApiError {
  constructor() {
    super(503, "internal", "The server is stopping: the code may not have been sent; ask for a new code in a moment", undefined, {
      "retry-after": "5",
    });
  }
}

/** Resolves `work`, or rejects with SendAbandoned as soon as `stopping` is aborted (the work itself is left behind). */
export function unlessStopping<T>(work: Promise<T>, stopping: AbortSignal | undefined): Promise<T> {
  if (!stopping) return work;
  if (stopping.aborted) return Promise.reject(new SendAbandoned());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SendAbandoned());
    stopping.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => stopping.removeEventListener("abort", onAbort));
  });
}

export interface CodeDelivery {
  send(msg: CodeMessage): Promise<DeliveryResult>;
  close(): Promise<void>;
}

/** Twilio-compatible SMS API (SMS_PROVIDER=twilio), or a generic JSON POST (SMS_PROVIDER=http). */
async function sendSms(
  config: Config,
  to: string,
  body: string,
  statusCallback: string | undefined,
  stopping: AbortSignal | undefined,
): Promise<DeliveryResult> {
  if (!config.SMS_PROVIDER || !config.SMS_API_URL)
    return { status: "failed", error: "Text messages are not configured (SMS_PROVIDER, SMS_API_URL)" };
  const ctl = stopping ? AbortSignal.any([AbortSignal.timeout(10_000), stopping]) : AbortSignal.timeout(10_000);
  try {
    let res: Response;
    if (config.SMS_PROVIDER === "twilio") {
      const url = `${config.SMS_API_URL.replace(/\/$/, "")}/2010-04-01/Accounts/${config.SMS_ACCOUNT_SID}/Messages.json`;
      res = await fetch(url, {
        method: "POST",
        signal: ctl,
        headers: {
          authorization: `Basic ${Buffer.from(`${config.SMS_ACCOUNT_SID}:${config.SMS_AUTH_TOKEN}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          To: to,
          From: config.SMS_FROM ?? "",
          Body: body,
          ...(statusCallback ? { StatusCallback: statusCallback } : {}),
        }),
      });
    } else {
      res = await fetch(config.SMS_API_URL, {
        method: "POST",
        signal: ctl,
        headers: {
          "content-type": "application/json",
          ...(config.SMS_AUTH_TOKEN ? { authorization: `Bearer ${config.SMS_AUTH_TOKEN}` } : {}),
        },
        body: JSON.stringify({ to, from: config.SMS_FROM, body, ...(statusCallback ? { status_callback: statusCallback } : {}) }),
      });
    }
    if (!res.ok) return { status: "failed", error: `SMS provider answered ${res.status}` };
    return { status: "sent" };
  } catch (e) {
    if (stopping?.aborted) throw new SendAbandoned();
    return { status: "failed", error: `SMS provider unreachable: ${(e as Error).name}` };
  }
}

/**
 * In development without SMTP_URL (or an SMS provider), codes go to the dev outbox instead of a mailbox or a phone
 * (GET /v3/dev/outbox, the demo's /demo/outbox page) and, so that a developer finds them where they look first, one
 * line of the server log. Never in production: there is no outbox there.
 */
export function createCodeDelivery(
  config: Config,
  log: (line: string) => void = (line) => console.log(line),
  /** Aborted when the server stops: a send still waiting for the provider is abandoned (SendAbandoned). */
  stopping?: AbortSignal,
): CodeDelivery {
  const transport: Transporter | undefined = config.SMTP_URL
    ? nodemailer.createTransport(config.SMTP_URL, { from: config.EMAIL_FROM })
    : undefined;
  const devOutbox = !transport && config.isDev;
  const toOutbox = (outbox: OutboxMessage): DeliveryResult => {
    if (config.LOG_LEVEL !== "silent")
      log(`[dev outbox] code ${outbox.code} for ${outbox.recipient} (${outbox.channel}; see /demo/outbox)`);
    return { status: "sent", outbox };
  };
  // The code is typed on the challenge page, served from PUBLIC_URL: that host goes in the WebOTP line of texts.
  const host = new URL(config.publicUrl).hostname;
  return {
    async send(msg) {
      const input: MessageInput = {
        language: msg.language,
        code: msg.code,
        type: msg.type,
        ttlMs: config.CHALLENGE_CODE_TTL_MS,
        project: msg.project,
        host,
      };
      if (msg.channel === "email") {
        const mail = codeEmail(input);
        if (devOutbox) return toOutbox({ channel: "email", recipient: msg.to, subject: mail.subject, body: mail.text, code: msg.code });
        if (!transport) return { status: "failed", error: "Email is not configured (SMTP_URL)" };
        try {
          // An address object is never split into a list or parsed for a name (one recipient only; docs/security.md).
          const info = await unlessStopping(
            transport.sendMail({
              from: config.EMAIL_FROM,
              to: { name: "", address: msg.to },
              subject: mail.subject,
              text: mail.text,
              html: mail.html,
            }),
            stopping,
          );
          // The mail server took responsibility for it: as far as this transport can tell, delivered.
          return (info.accepted?.length ?? 0) > 0
            ? { status: "delivered" }
            : { status: "failed", error: "Mail server accepted no recipient" };
        } catch (e) {
          if (e instanceof SendAbandoned) throw e;
          const code = (e as { responseCode?: number }).responseCode;
          // A permanent refusal (5xx) of the recipient: the address does not take mail.
          if ((e as { code?: string }).code === "EENVELOPE" && code !== undefined && code >= 500)
            return { status: "bounced", error: `Mail server refused the address (${code})` };
          return { status: "failed", error: code ? `Mail server refused the message (${code})` : "Mail server unreachable" };
        }
      }
      const body = codeSms(input);
      if (devOutbox && !config.SMS_PROVIDER) return toOutbox({ channel: "text", recipient: msg.to, subject: "SMS", body, code: msg.code });
      return sendSms(config, msg.to, body, msg.statusCallback, stopping);
    },
    async close() {
      transport?.close();
    },
  };
}
