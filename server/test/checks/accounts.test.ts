// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// The accounts behind one browser or address (server/src/checks/families/accounts.ts).
import { describeChecks, later } from "./harness.js";

describeChecks("accounts", [
  {
    check: "fingerprint_user_count",
    set: [
      {
        why: "a second account on the same browser",
        value: 2,
        run: async (h) => {
          const b = h.browser();
          await h.client("signup", { user: h.id("u"), browser: b });
          return h.client("signup", { user: h.id("u"), browser: b });
        },
      },
      {
        why: "a second email-only sign-up (no user id yet) on a browser that cleared its storage",
        value: 2,
        run: async (h) => {
          const b = h.browser();
          await h.client("signup", { email: `${h.id("e")}@example.org`, browser: b });
          return h.client("signup", { email: `${h.id("e")}@example.org`, browser: { ...b, token: `${b.token}-cleared` } });
        },
      },
    ],
    unset: [
      { why: "one account on its own browser", value: 1, run: (h) => h.client("signup", { user: h.id("u"), browser: h.browser() }) },
      {
        why: "two accounts on two phones of one model: a fingerprint every such phone shares is not identifying",
        value: 1,
        run: async (h) => {
          await h.client("signup", { user: h.id("u"), browser: h.phone() });
          return h.client("signup", { user: h.id("u"), browser: h.phone() });
        },
      },
      {
        why: "a provisional user (first seen on a login, never confirmed) on the browser is not an account",
        value: 1,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b });
          return h.client("signup", { user: h.id("u"), browser: b });
        },
      },
    ],
  },
  {
    check: "fingerprint_accounts_tried",
    set: [
      {
        why: "a third account logged into from one browser within the hour, known or not",
        value: 3,
        run: async (h) => {
          const [b, known] = [h.browser(), h.id("u")];
          await h.client("signup", { user: known, browser: h.browser() });
          await h.client("login", { user: h.id("u"), browser: b });
          await h.client("login", { user: known, browser: b });
          return h.client("login", { user: h.id("u"), browser: b });
        },
      },
    ],
    unset: [
      {
        why: "one account logging in again and again is one account",
        value: 1,
        run: async (h) => {
          const [b, user] = [h.browser(), h.id("u")];
          await h.client("login", { user, browser: b });
          await h.client("login", { user, browser: b });
          return h.client("login", { user, browser: b });
        },
      },
      {
        why: "phones of one model: their shared fingerprint names no browser",
        value: 0,
        run: async (h) => {
          await h.client("login", { user: h.id("u"), browser: h.phone() });
          return h.client("login", { user: h.id("u"), browser: h.phone() });
        },
      },
      {
        why: "accounts logged into more than an hour before are not counted",
        value: 1,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b });
          await h.client("login", { user: h.id("u"), browser: b });
          return later(61 * 60_000, () => h.client("login", { user: h.id("u"), browser: b }));
        },
      },
    ],
  },
  {
    check: "fingerprint_ip_user_count",
    set: [
      {
        why: "a third account from a phone of one model on one address (a phone that cleared its storage between accounts)",
        value: 3,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
          await h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
          return h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
        },
      },
      {
        why: "an identifying browser counts the same way: a second account on it from one address",
        value: 2,
        run: async (h) => {
          const [b, ip] = [h.browser(), h.ip()];
          await h.client("signup", { user: h.id("u"), browser: b, ip });
          return h.client("signup", { user: h.id("u"), browser: { ...b, token: `${b.token}-cleared` }, ip });
        },
      },
    ],
    unset: [
      {
        why: "phones of one model on two addresses: strangers' phones, not one phone",
        value: 1,
        run: async (h) => {
          await h.client("signup", { user: h.id("u"), browser: h.phone(), ip: h.ip() });
          return h.client("signup", { user: h.id("u"), browser: h.phone(), ip: h.ip() });
        },
      },
      {
        why: "another browser (other components) on the same address",
        value: 1,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { user: h.id("u"), browser: h.browser(), ip });
          return h.client("signup", { user: h.id("u"), browser: h.browser(), ip });
        },
      },
      {
        why: "a provisional user (a login on an unknown account) from the phone is not an account",
        value: 1,
        run: async (h) => {
          const ip = h.ip();
          await h.client("login", { user: h.id("u"), browser: h.phone(), ip });
          return h.client("signup", { user: h.id("u"), browser: h.phone(), ip });
        },
      },
    ],
  },
  {
    check: "device_user_count",
    set: {
      why: "a second account with the same visitor token (the browser's stored id)",
      value: 2,
      run: async (h) => {
        const b = h.browser();
        await h.client("signup", { user: h.id("u"), browser: b });
        return h.client("signup", { user: h.id("u"), browser: { ...h.browser(), token: b.token } });
      },
    },
    unset: [
      { why: "one account with its own token", value: 1, run: (h) => h.client("signup", { user: h.id("u"), browser: h.browser() }) },
      {
        why: "a provisional user with the token is not an account",
        value: 1,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b });
          return h.client("signup", { user: h.id("u"), browser: b });
        },
      },
    ],
  },
  {
    check: "ip_user_count",
    set: {
      why: "two accounts from one IP within the hour",
      value: 2,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        return h.client("login", { user: h.id("u"), ip });
      },
    },
    unset: { why: "one account on its IP", value: 1, run: (h) => h.client("login", { user: h.id("u"), ip: h.ip() }) },
  },
]);
