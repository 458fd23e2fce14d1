// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// The request's own values and the lists that hold them (server/src/checks/families/lists.ts).
import { expect } from "vitest";
import { describeChecks, IP, IPAD_UA, IPHONE_UA } from "./harness.js";

describeChecks("lists", [
  {
    check: "action",
    set: { why: "the action of the request", value: "purchase", run: (h) => h.client("purchase") },
    unset: { why: "another action is another value", value: "visit", run: (h) => h.client("visit") },
  },
  {
    check: "in_list",
    set: {
      why: "a user id added to a list",
      value: ["watched"],
      run: async (h) => {
        const user = h.id("u");
        const r = await h.t.app.inject({ method: "POST", url: "/v3/lists/watched/add", headers: h.t.auth, payload: { values: [user] } });
        expect(r.statusCode, r.body).toBe(200);
        return h.server("visit", { user });
      },
    },
    unset: { why: "a user in no list", value: [], run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "user_id",
    set: { why: "the user named by the request", value: "user-42", run: (h) => h.server("visit", { user: "user-42" }) },
    unset: { why: "an anonymous request", value: null, run: (h) => h.server("visit", {}) },
  },
  {
    check: "ip",
    set: { why: "the client IP behind the trusted proxy", value: IP.saoPaulo, run: (h) => h.client("visit", { ip: IP.saoPaulo }) },
    unset: { why: "a backend evaluation without an IP", value: null, run: (h) => h.server("visit", {}) },
  },
  {
    check: "email",
    set: {
      why: "the request's email, in lower case (surrounding space is a 400: docs/security.md)",
      value: "alice@example.com",
      run: (h) => h.server("visit", { user: h.id("u"), email: "Alice@Example.com" }),
    },
    unset: { why: "no email", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "email_domain",
    set: { why: "the email's domain", value: "example.org", run: (h) => h.server("visit", { user: h.id("u"), email: "bob@Example.org" }) },
    unset: { why: "no email", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "phone",
    set: { why: "the request's phone", value: "+33612345678", run: (h) => h.server("visit", { user: h.id("u"), phone: "+33612345678" }) },
    unset: { why: "no phone", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "fingerprint_id",
    set: {
      why: "the browser's fingerprint",
      value: (ev) => ev.fingerprint?.id ?? "missing",
      run: (h) => h.client("visit", { browser: h.browser() }),
    },
    unset: { why: "no components", value: null, run: (h) => h.client("visit", { bare: true }) },
  },
  {
    check: "device_id",
    set: { why: "the browser's device", value: (ev) => ev.device ?? "missing", run: (h) => h.client("visit", { browser: h.browser() }) },
    unset: { why: "a backend evaluation without a browser", value: null, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "device_type",
    set: [
      { why: "an iPhone", value: "mobile", run: (h) => h.client("visit", { ua: IPHONE_UA }) },
      { why: "an iPad", value: "tablet", run: (h) => h.client("visit", { ua: IPAD_UA }) },
    ],
    unset: { why: "a desktop browser", value: "computer", run: (h) => h.client("visit") },
  },
]);
