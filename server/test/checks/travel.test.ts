// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Travel (server/src/checks/families/travel.ts): from the user's latest trusted place, from the browser's own latest place, the distance from home.
import { expect } from "vitest";
import { above, describeChecks, HOUR, IP, later, travel, trustedLogin } from "./harness.js";

describeChecks("travel", [
  {
    check: "impossible_travel",
    set: [
      {
        why: "London, then Tokyo a moment later",
        value: true,
        run: (h) => travel(h, IP.london, IP.tokyo),
      },
      {
        why: "London, then a carrier exit, then Tokyo: measured from the last place the user really was",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          // Trusted in London (see travel(): a shared-London login rule may challenge it, and the user passes).
          await trustedLogin(h, user, IP.london, b);
          await h.client("login", { user, browser: b, ip: IP.tmobileFlorida });
          return h.client("login", { user, browser: b, ip: IP.tokyo });
        },
      },
    ],
    unset: [
      { why: "London, then another London IP", value: false, run: (h) => travel(h, IP.london, IP.london2) },
      {
        why: "London, then Grangemouth (554 km) a minute later: within the two places' accuracy",
        value: false,
        run: (h) => travel(h, IP.london, IP.grangemouth),
      },
      {
        why: "New York, then a carrier exit placed 3,500 km away (carrier-grade NAT says nothing about the place)",
        value: false,
        run: (h) => travel(h, IP.newYork, IP.tmobileSpokane),
      },
      {
        why: "London, then a VPN exit (a chosen server is no place; that is ip_is_anonymous)",
        value: false,
        run: (h) => travel(h, IP.london, IP.vpn),
      },
      {
        why: "after the user passed a challenge for a jump (Tokyo, then London), the next login from London is not that jump again",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.tokyo, b);
          const jump = await h.client("login", { user, browser: b, ip: IP.london });
          expect(jump.checks?.impossible_travel).toBe(true);
          await h.pass(jump.challenge?.id);
          return h.client("login", { user, browser: b, ip: IP.london2 });
        },
      },
      {
        why: "the owner at home after a stranger's attempt from Tokyo that nobody passed",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.london, b);
          // Challenged, or denied once the cases before have made Tokyo a crowded address: nobody passed it.
          const attempt = await h.client("login", { user, ip: IP.tokyo });
          expect(attempt.verdict).not.toBe("allow");
          return h.client("login", { user, browser: b, ip: IP.london2 });
        },
      },
    ],
  },
  {
    check: "travel_speed_kmh",
    set: { why: "London, then São Paulo a moment later", value: above(1000), run: (h) => travel(h, IP.london, IP.saoPaulo) },
    unset: { why: "a user's first located evaluation", value: 0, run: (h) => h.client("login", { user: h.id("u"), ip: IP.london }) },
  },
  {
    check: "browser_impossible_travel",
    set: [
      {
        why: "one browser names an account never met in London, then another in Tokyo a minute later",
        value: true,
        run: async (h) => {
          const b = h.browser();
          await h.client("login", { user: h.id("u"), browser: b, ip: IP.london });
          return h.client("login", { user: h.id("u"), browser: b, ip: IP.tokyo });
        },
      },
      {
        why: "one visitor token in London, then in São Paulo a minute later under a fingerprint drawn anew",
        value: true,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.london });
          return h.client("visit", { browser: { ...h.browser(), token: b.token }, ip: IP.saoPaulo });
        },
      },
    ],
    unset: [
      {
        why: "one browser in London, then in Tokyo 15 hours later (a flight)",
        value: false,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.london });
          return later(15 * HOUR, () => h.client("visit", { browser: b, ip: IP.tokyo }));
        },
      },
      {
        why: "two iPhones of one model, each with its own token, in London and in Tokyo (a model's fingerprint is everyone's)",
        value: false,
        run: async (h) => {
          await h.client("visit", { browser: h.phone(), ip: IP.london });
          return h.client("visit", { browser: h.phone(), ip: IP.tokyo });
        },
      },
      {
        why: "one browser in London, then through a VPN exit (a chosen server is no place)",
        value: false,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.london });
          return h.client("visit", { browser: b, ip: IP.vpn });
        },
      },
      {
        why: "one browser in Tokyo, then in London a minute later after a visit from another London address",
        value: false,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: IP.tokyo });
          await later(15 * HOUR, () => h.client("visit", { browser: b, ip: IP.london }));
          return later(15 * HOUR + 60_000, () => h.client("visit", { browser: b, ip: IP.london2 }));
        },
      },
    ],
  },
  {
    check: "distance_from_trusted_km",
    set: [
      {
        why: "New York, then San Jose: 4,100 km less both accuracy radii",
        value: above(3500),
        run: (h) => travel(h, IP.newYork, IP.sanJose),
      },
      {
        why: "a place seen only on an attempt nobody passed is no trusted place",
        value: above(3500),
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.newYork, b);
          const attempt = await h.client("login", { user, ip: IP.sanJose, timezone: "Asia/Shanghai" });
          expect(attempt.verdict).toBe("challenge");
          return h.client("login", { user, ip: IP.sanJose });
        },
      },
    ],
    unset: [
      { why: "a user's first located evaluation", value: null, run: (h) => h.client("login", { user: h.id("u"), ip: IP.london }) },
      {
        why: "New York, then another New York network: within the accuracy radii",
        value: 0,
        run: (h) => travel(h, IP.newYork, IP.newYork2),
      },
      {
        why: "the nearest trusted place counts: New York, then San Jose, then New York again on a new browser",
        value: 0,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.newYork, b);
          // Another browser: a newer challenge on the same browser would supersede the first one's, still open.
          const far = await trustedLogin(h, user, IP.sanJose);
          expect(far.checks?.distance_from_trusted_km).toBeGreaterThan(3500);
          return h.client("login", { user, ip: IP.newYork2 });
        },
      },
      { why: "a VPN exit places no one", value: null, run: (h) => travel(h, IP.newYork, IP.vpn) },
      { why: "a carrier exit places no one", value: null, run: (h) => travel(h, IP.newYork, IP.tmobileSpokane) },
      {
        why: "after only a carrier exit in the country (placed in Florida): no place there to measure from",
        value: null,
        run: (h) => travel(h, IP.tmobileFlorida, IP.newYork),
      },
      {
        why: "after only places in another country (a trip's say nothing about where at home the user lives)",
        value: null,
        run: (h) => travel(h, IP.london, IP.newYork),
      },
    ],
  },
]);
