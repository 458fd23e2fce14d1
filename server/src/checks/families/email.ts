// Checks of the email the request names (signals/email.ts): a disposable, webmail or invalid address.
import { defineCheck } from "../define.js";

export const checks = [
  defineCheck({
    name: "email_is_disposable",
    type: "boolean",
    doc: "The email's domain is a disposable-address service's.",
    reason: "disposable_email",
    compute: (c) => c.signals.email?.disposable ?? false,
  }),
  defineCheck({
    name: "email_is_webmail",
    type: "boolean",
    doc: "The email's domain is a free webmail provider's (not a company's own).",
    reason: "webmail",
    compute: (c) => c.signals.email?.webmail ?? false,
  }),
  defineCheck({
    name: "email_is_invalid",
    type: "boolean",
    doc: "The email is not a deliverable address by its shape or domain.",
    reason: "invalid_email",
    compute: (c) => c.signals.email?.invalid ?? false,
  }),
] as const;
