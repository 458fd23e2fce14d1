// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// The email the request names (server/src/checks/families/email.ts).
import { describeChecks } from "./harness.js";

describeChecks("email", [
  {
    check: "email_is_disposable",
    set: { why: "a throwaway address", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@mailinator.com" }) },
    unset: { why: "a webmail address", value: false, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@gmail.com" }) },
  },
  {
    check: "email_is_webmail",
    set: { why: "a public webmail address", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@outlook.com" }) },
    unset: { why: "a company address", value: false, run: (h) => h.server("visit", { user: h.id("u"), email: "someone@acme-corp.com" }) },
  },
  {
    check: "email_is_invalid",
    set: [
      // Not an address at all is a 400 (docs/security.md); these are RFC 5322 addresses no mail provider hands out.
      { why: "a top-level domain with a digit", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "a@example.c0m" }) },
      { why: "a label starting with a hyphen", value: true, run: (h) => h.server("visit", { user: h.id("u"), email: "a@-x.example.com" }) },
    ],
    unset: { why: "a well-formed address", value: false, run: (h) => h.server("visit", { user: h.id("u"), email: "a.b@example.com" }) },
  },
]);
