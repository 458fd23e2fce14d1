// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Who the request is (server/src/checks/families/identity.ts): a new user, a browser or device new to the user, the account's age, whether the backend vouches for it, its contacts.

import { userToken } from "@tessera/sdk/node";
import { expect } from "vitest";
import {
  DAY,
  describeChecks,
  IP,
  later,
  londonIp,
  onTheUsualBrowser,
  ownComponentsOnNewToken,
  trustedLogin,
  twoDevices,
} from "./harness.js";

describeChecks("identity", [
  {
    check: "is_new_user",
    set: { why: "a user's first evaluation", value: true, run: (h) => h.client("visit", { user: h.id("u") }) },
    unset: {
      why: "the same user again",
      value: false,
      run: async (h) => {
        const user = h.id("u");
        await h.client("visit", { user });
        return h.client("visit", { user });
      },
    },
  },
  {
    check: "is_new_fingerprint",
    set: [
      {
        why: "a known user on a browser they never used",
        value: true,
        run: (h) => twoDevices(h),
      },
      {
        why: "a known user's browser that sends no components (stripping them does not look familiar)",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b });
          return h.client("login", { user, bare: true });
        },
      },
      {
        why: "a browser that only opened pages naming the user, never signed in (the client id is public)",
        value: true,
        run: (h) => onTheUsualBrowser(h),
      },
      {
        why: "the user's own components on a new visitor token (any page the user visits can collect them)",
        value: true,
        run: (h) => ownComponentsOnNewToken(h),
      },
      {
        why: "a stranger's browser whose login was challenged or denied, trying again",
        value: true,
        run: async (h) => {
          const [user, stranger] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, londonIp());
          expect((await h.client("login", { user, browser: stranger, ip: IP.tokyo })).verdict).not.toBe("allow");
          return h.client("login", { user, browser: stranger, ip: IP.tokyo });
        },
      },
    ],
    unset: [
      {
        why: "a known user on the browser they signed in on",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          return h.client("visit", { user, browser: b });
        },
      },
      {
        why: "a phone the user signed in on (its fingerprint is its model's: the device decides)",
        value: false,
        run: async (h) => {
          const [user, phone] = [h.id("u"), h.phone()];
          await trustedLogin(h, user, h.net(), phone);
          return h.client("visit", { user, browser: phone });
        },
      },
      {
        why: "a backend evaluation naming no browser: unknown (null), not new",
        value: null,
        run: async (h) => {
          const user = h.id("u");
          await h.client("login", { user });
          return h.server("login", { user, ip: h.ip() });
        },
      },
    ],
  },
  {
    check: "is_new_device",
    set: [
      {
        why: "a known user on another machine",
        value: true,
        run: (h) => twoDevices(h),
      },
      {
        why: "a browser that only opened pages naming the user (a page view never attaches a device)",
        value: true,
        run: (h) => onTheUsualBrowser(h),
      },
      {
        why: "the user's own components on a new visitor token: recognised by its fingerprint, not vouched for",
        value: true,
        run: (h) => ownComponentsOnNewToken(h),
      },
    ],
    unset: {
      why: "a known user on the browser they signed in on",
      value: false,
      run: async (h) => {
        const [user, b] = [h.id("u"), h.browser()];
        await trustedLogin(h, user, h.ip(), b);
        return h.client("visit", { user, browser: b });
      },
    },
  },
  {
    check: "is_recognised_device",
    set: {
      why: "the user's own components on a new visitor token: the user's device, recognised by its fingerprint",
      value: true,
      run: (h) => ownComponentsOnNewToken(h),
    },
    unset: [
      {
        why: "a known user on the browser they signed in on (found by its own token)",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.ip(), b);
          return h.client("visit", { user, browser: b });
        },
      },
      {
        why: "a known user on a browser never seen (a new device, not a recognised one)",
        value: false,
        run: (h) => twoDevices(h),
      },
      {
        why: "the user's iPhone on a new token: recognised by what every iPhone of the model presents, no copy of a distinctive browser",
        value: false,
        run: async (h) => {
          const [user, phone, ip] = [h.id("u"), h.phone(), h.ip()];
          const first = await trustedLogin(h, user, ip, phone);
          const ev = await h.client("visit", { user, browser: { ...phone, token: `tok-${h.id("new")}-xxxxxxxx` }, ip });
          expect(ev.device).toBe(first.device);
          return ev;
        },
      },
    ],
  },
  {
    check: "user_age_days",
    set: {
      why: "a user first seen three days earlier (the server's clock moved on)",
      value: 3,
      run: async (h) => {
        const user = h.id("u");
        await h.client("visit", { user });
        return later(3 * DAY + 60_000, () => h.client("visit", { user }));
      },
    },
    unset: { why: "a user seen for the first time", value: 0, run: (h) => h.client("visit", { user: h.id("u") }) },
  },
  {
    check: "fingerprint_confidence",
    set: { why: "a browser with enough components", value: 1, run: (h) => h.client("visit", { browser: h.browser() }) },
    unset: { why: "no components: no fingerprint", value: 0, run: (h) => h.client("visit", { bare: true }) },
  },
  {
    check: "is_provisional_user",
    set: { why: "a user first seen on a login", value: true, run: (h) => h.client("login", { user: h.id("u") }) },
    unset: [
      { why: "a user first seen on a sign-up", value: false, run: (h) => h.client("signup", { user: h.id("u") }) },
      {
        why: "a user whose login the backend consumed",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.consume(await h.client("login", { user, browser: b }));
          return h.client("login", { user, browser: b });
        },
      },
    ],
  },
  {
    check: "is_email_verified",
    set: {
      why: "a user who entered the code mailed to them",
      value: true,
      run: async (h) => {
        const user = h.id("u");
        await h.verify(user, "email");
        return h.server("visit", { user });
      },
    },
    unset: {
      why: "a user with an email never verified",
      value: false,
      run: (h) => h.server("visit", { user: h.id("u"), email: "unverified@example.com" }),
    },
  },
  {
    check: "contact_mismatch",
    set: [
      {
        why: "a client login claiming another email than the stored one",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, email: `${user}@example.com` });
          return h.client("login", { user, email: "someone.else@example.net" });
        },
      },
      {
        why: "a client login claiming another phone than the stored one",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, phone: "+33612345678" });
          return h.client("login", { user, phone: "+33698765432" });
        },
      },
    ],
    unset: [
      {
        why: "the stored email again, in other capitals",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, email: `${user}@example.com` });
          return h.client("login", { user, email: `${user.toUpperCase()}@EXAMPLE.COM` });
        },
      },
      {
        why: "a backend evaluation with a new email (the backend's contacts are the user's)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, email: `${user}@example.com` });
          return h.server("login", { user, email: "new.address@example.net" });
        },
      },
    ],
  },
  {
    check: "identity_verified",
    set: [
      {
        why: "a client login with the user_token the backend signed for the user",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          const secret = (await h.t.services.identity.rotate(h.t.project.id, "development")) as string;
          return h.client("login", { user, user_token: await userToken(secret, user) });
        },
      },
      { why: "a backend evaluation naming the user", value: true, run: (h) => h.server("login", { user: h.id("u") }) },
    ],
    unset: [
      { why: "a client login without a token", value: false, run: (h) => h.client("login", { user: h.id("u") }) },
      {
        why: "a client login with a token signed for another user",
        value: false,
        run: async (h) => {
          const secret = (await h.t.services.identity.rotate(h.t.project.id, "development")) as string;
          return h.client("login", { user: h.id("u"), user_token: await userToken(secret, "someone-else") });
        },
      },
    ],
  },
  {
    check: "is_phone_verified",
    set: {
      why: "a user who entered the code texted to them",
      value: true,
      run: async (h) => {
        const user = h.id("u");
        await h.verify(user, "text");
        return h.server("visit", { user });
      },
    },
    unset: {
      why: "a user who verified their email but not their phone",
      value: false,
      run: async (h) => {
        const user = h.id("u");
        await h.verify(user, "email");
        return h.server("visit", { user });
      },
    },
  },
]);
