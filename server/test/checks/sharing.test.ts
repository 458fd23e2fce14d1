// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Account sharing (server/src/checks/families/sharing.ts): devices in use, the device limit, concurrent sessions.
import { expect } from "vitest";
import { BROWSER_UA } from "../helpers.js";
import { describeChecks, IP, IPAD_UA, IPHONE_UA, later, londonIp, trustedLogin, twoDevices } from "./harness.js";

describeChecks("sharing", [
  {
    check: "concurrent_sessions",
    set: {
      why: "a second computer of the user, active at once from another network",
      value: 1,
      run: async (h) => {
        const user = h.id("u");
        await trustedLogin(h, user, h.net());
        return h.client("access", { user, browser: h.browser(), ip: h.net() });
      },
    },
    unset: [
      {
        why: "a second computer of the user on the same IP",
        value: 0,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.ip()];
          await trustedLogin(h, user, ip);
          return h.client("access", { user, browser: h.browser(), ip });
        },
      },
      {
        why: "a second computer on another address of the same /24 (one office, two gateway exits)",
        value: 0,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.net()];
          await trustedLogin(h, user, ip);
          return h.client("access", { user, browser: h.browser(), ip: ip.replace(/\.\d+$/, ".200") });
        },
      },
    ],
  },
  {
    check: "session_impossible_travel",
    set: [
      {
        why: "the user's computer in use in London while a phone logs in from Tokyo",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          // An address of its own in London: the shared one is crowded with the other cases' logins (denied there).
          await trustedLogin(h, user, londonIp());
          return h.client("access", { user, browser: h.browser(IPHONE_UA), ip: IP.tokyo });
        },
      },
      {
        why: "London and Grangemouth at once: 354 km beyond both radii, too far for one person within the quarter hour",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          // An address of its own in London: the shared one is crowded with the other cases' logins (denied there).
          await trustedLogin(h, user, londonIp());
          return h.client("access", { user, browser: h.browser(), ip: IP.grangemouth });
        },
      },
    ],
    unset: [
      {
        why: "the user's laptop at home and their phone on its carrier at once (a carrier exit places nobody)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, IP.newYork);
          return h.client("access", { user, browser: h.browser(IPHONE_UA), ip: IP.tmobileSpokane });
        },
      },
      {
        why: "a device last used in London sixteen hours before Tokyo (a flight's pace, no longer in use)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, IP.london);
          return later(16 * 3600_000, () => h.client("access", { user, browser: h.browser(IPHONE_UA), ip: IP.tokyo }));
        },
      },
      {
        why: "a stranger's browser naming the user from Tokyo is no session of theirs (the client id is public)",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, londonIp());
          // Let in (a page no policy watches), so its device joins the account and is in use in Tokyo.
          expect((await h.client("visit", { user, browser: h.browser(), ip: IP.tokyo })).verdict).toBe("allow");
          return h.client("access", { user, browser: h.browser(IPHONE_UA), ip: londonIp() });
        },
      },
    ],
  },
  {
    check: "device_limit",
    set: {
      why: "the device limit of the account-sharing policy for the action (1 on stream)",
      value: 1,
      run: (h) => h.client("stream", { user: h.id("u") }),
    },
    unset: {
      why: "no account-sharing policy for the action: the project's default, 3",
      value: 3,
      run: (h) => h.client("visit", { user: h.id("u") }),
    },
  },
  {
    check: "devices_over_limit",
    set: {
      why: "a second computer where the sharing policy allows one",
      value: 1,
      run: async (h) => {
        const user = h.id("u");
        await trustedLogin(h, user, h.net());
        return h.client("stream", { user, browser: h.browser() });
      },
    },
    unset: {
      why: "a second computer where the limit is the default 3",
      value: 0,
      run: (h) => twoDevices(h),
    },
  },
  {
    check: "device_count",
    set: [
      { why: "a user with a computer and a tablet", value: 2, run: (h) => twoDevices(h, IPAD_UA) },
      {
        why: "a computer the user keeps coming back to still counts hours later",
        value: 2,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await later(2 * 3600_000, () => h.client("visit", { user, browser: b }));
          return later(5 * 3600_000, () => h.client("visit", { user, browser: h.browser() }));
        },
      },
      {
        why: "two computers used in turn over days both count",
        value: 2,
        run: async (h) => {
          const [user, b, c] = [h.id("u"), h.browser(), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await later(2 * 3600_000, () => h.client("visit", { user, browser: b }));
          await later(24 * 3600_000, () => trustedLogin(h, user, h.net(), c));
          return later(24.5 * 3600_000, () => h.client("visit", { user, browser: b }));
        },
      },
    ],
    unset: [
      {
        why: "a browser that lost its storage and came back as a new device a day later counts once",
        value: 1,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await later(2 * 3600_000, () => h.client("visit", { user, browser: b }));
          const again = { ...h.browser(), token: `${b.token}-cleared` };
          await later(24 * 3600_000, () => h.client("visit", { user, browser: again }));
          return later(25 * 3600_000, () => h.client("visit", { user, browser: again }));
        },
      },
      { why: "a user with one device", value: 1, run: (h) => h.client("visit", { user: h.id("u") }) },
      {
        why: "a stranger's browser that only named the user on a page is none of the user's devices (the client id is public)",
        value: 1,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, h.net(), b);
          await h.client("visit", { user, ip: h.net() });
          return h.client("visit", { user, browser: b });
        },
      },
      {
        why: "a private window used once, hours ago, no longer counts",
        value: 1,
        run: async (h) => {
          const user = h.id("u");
          await h.client("visit", { user, browser: h.phone() });
          return later(2 * 3600_000, () => h.client("visit", { user, browser: h.browser() }));
        },
      },
    ],
  },
  {
    check: "computer_device_count",
    set: { why: "a user with two computers", value: 2, run: (h) => twoDevices(h, BROWSER_UA) },
    unset: { why: "a user with a phone only", value: 0, run: (h) => h.client("visit", { user: h.id("u"), ua: IPHONE_UA }) },
  },
  {
    check: "tablet_device_count",
    set: { why: "a user with a computer and a tablet", value: 1, run: (h) => twoDevices(h, IPAD_UA) },
    unset: { why: "a user with a computer only", value: 0, run: (h) => h.client("visit", { user: h.id("u") }) },
  },
  {
    check: "mobile_device_count",
    set: { why: "a user with a computer and a phone", value: 1, run: (h) => twoDevices(h, IPHONE_UA) },
    unset: { why: "a user with a computer only", value: 0, run: (h) => h.client("visit", { user: h.id("u") }) },
  },
]);
