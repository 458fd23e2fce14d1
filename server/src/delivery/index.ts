// Delivery of one-time codes behind one interface (SPEC.md 7): email over SMTP (nodemailer), text through an SMS
// provider's HTTP API, or, in development with no SMTP_URL, the dev outbox. Failures are reported, never swallowed.
import type { Channel, Language } from "@tessera/sdk/contract";
import nodemailer, { type Transporter } from "nodemailer";
import type { Config } from "../config.js";
import { codeEmail, codeSms } from "./messages.js";

export interface CodeMessage {
  channel: Channel;
  to: string;
  code: string;
  language: Language;
  project: string;
}

export interface OutboxMessage {
  channel: Channel;
  recipient: string;
  subject: string;
  body: string;
}

export type DeliveryResult = { status: "sent" | "delivered"; outbox?: OutboxMessage } | { status: "failed"; error: string };

export interface CodeDelivery {
  send(msg: CodeMessage): Promise<DeliveryResult>;
  close(): Promise<void>;
}

/** Twilio-compatible SMS API (SMS_PROVIDER=twilio), or a generic JSON POST (SMS_PROVIDER=http). */
async function sendSms(config: Config, to: string, body: string): Promise<DeliveryResult> {
  if (!config.SMS_PROVIDER || !config.SMS_API_URL)
    return { status: "failed", error: "Text messages are not configured (SMS_PROVIDER, SMS_API_URL)" };
  const ctl = AbortSignal.timeout(10_000);
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
        body: new URLSearchParams({ To: to, From: config.SMS_FROM ?? "", Body: body }),
      });
    } else {
      res = await fetch(config.SMS_API_URL, {
        method: "POST",
        signal: ctl,
        headers: {
          "content-type": "application/json",
          ...(config.SMS_AUTH_TOKEN ? { authorization: `Bearer ${config.SMS_AUTH_TOKEN}` } : {}),
        },
        body: JSON.stringify({ to, from: config.SMS_FROM, body }),
      });
    }
    if (!res.ok) return { status: "failed", error: `SMS provider answered ${res.status}` };
    return { status: "sent" };
  } catch (e) {
    return { status: "failed", error: `SMS provider unreachable: ${(e as Error).name}` };
  }
}

export function createCodeDelivery(config: Config): CodeDelivery {
  const transport: Transporter | undefined = config.SMTP_URL
    ? nodemailer.createTransport(config.SMTP_URL, { from: config.EMAIL_FROM })
    : undefined;
  const devOutbox = !transport && config.isDev;
  return {
    async send(msg) {
      if (msg.channel === "email") {
        const mail = codeEmail(msg.language, msg.project, msg.code);
        if (devOutbox) return { status: "sent", outbox: { channel: "email", recipient: msg.to, subject: mail.subject, body: mail.text } };
        if (!transport) return { status: "failed", error: "Email is not configured (SMTP_URL)" };
        try {
          await transport.sendMail({ from: config.EMAIL_FROM, to: msg.to, subject: mail.subject, text: mail.text, html: mail.html });
          return { status: "sent" };
        } catch (e) {
          const rejected = (e as { responseCode?: number }).responseCode;
          return { status: "failed", error: rejected ? `Mail server refused the message (${rejected})` : "Mail server unreachable" };
        }
      }
      const body = codeSms(msg.language, msg.project, msg.code);
      if (devOutbox && !config.SMS_PROVIDER)
        return { status: "sent", outbox: { channel: "text", recipient: msg.to, subject: "SMS", body } };
      return sendSms(config, msg.to, body);
    },
    async close() {
      transport?.close();
    },
  };
}
