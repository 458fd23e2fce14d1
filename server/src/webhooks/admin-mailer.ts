// The admin mailer for account-sharing notices: SMTP (SMTP_URL) through nodemailer. Without SMTP there is no
// mailer, so no admin email is claimed to have been sent (no `account_sharing.admin_notified`).
import nodemailer from "nodemailer";
import type { Config } from "../config.js";
import { unlessStopping } from "../delivery/index.js";
import type { AdminMailer } from "./account-sharing.js";

/** `stopping`: aborted when the server stops; a send still waiting for the mail server then fails (the job is retried). */
export function createAdminMailer(
  config: Pick<Config, "SMTP_URL" | "EMAIL_FROM">,
  stopping?: AbortSignal,
): (AdminMailer & { close(): void }) | undefined {
  if (!config.SMTP_URL) return undefined;
  const transport = nodemailer.createTransport(config.SMTP_URL, { from: config.EMAIL_FROM });
  return {
    async send(m) {
      await unlessStopping(transport.sendMail({ from: config.EMAIL_FROM, to: m.to, subject: m.subject, text: m.text }), stopping);
    },
    close: () => transport.close(),
  };
}
