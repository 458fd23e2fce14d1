// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// What the user was let in with before (server/src/checks/families/familiarity.ts): a new address, network, country, provider, time zone, language, from the familiarity ledger of trusted evaluations only.

import { userToken } from "@tessera/sdk/node";
import { expect } from "vitest";
import { describeChecks, IP, IPAD_UA, LINUX_UA, languageAfter, londonIp, trustedLogin, WINDOWS_UA, zoneAfter } from "./harness.js";

const FIREFOX_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0";

describeChecks("familiarity", [
  {
    check: "is_new_ip",
    set: [
      {
        why: "a known user from an IP never seen for them",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("visit", { user, browser: b, ip: h.ip() });
          return h.client("visit", { user, browser: b, ip: h.ip() });
        },
      },
      {
        why: "an IP seen only in a challenge nobody passed (an attacker's attempt) stays new",
        value: true,
        run: async (h) => {
          const [user, ip] = [h.id("u"), IP.tokyo];
          await trustedLogin(h, user, londonIp());
          // A never-seen browser in another country: the unfamiliar-login rule challenges it.
          expect((await h.client("login", { user, ip })).verdict).toBe("challenge");
          return h.client("login", { user, ip });
        },
      },
      {
        why: "an IP from which only a browser that never signed in named the user stays new (the client id is public)",
        value: true,
        run: async (h) => {
          const [user, stranger, ip] = [h.id("u"), h.browser(), h.ip()];
          await trustedLogin(h, user, h.ip());
          expect((await h.client("visit", { user, browser: stranger, ip })).verdict).toBe("allow");
          return h.client("visit", { user, browser: stranger, ip });
        },
      },
      {
        why: "an IP of a login let in but never consumed (a wrong password) stays new",
        value: true,
        run: async (h) => {
          // Addresses on /24s of their own: the never-seen browsers of other cases do not count here.
          const [user, stranger, ip] = [h.id("u"), h.browser(), h.net()];
          await trustedLogin(h, user, h.net());
          expect((await h.client("login", { user, browser: stranger, ip })).verdict).toBe("allow");
          return h.client("login", { user, browser: stranger, ip });
        },
      },
      {
        why: "an IP a browser visited from after it was logged out (detached) stays new until it signs in again",
        value: true,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.net()];
          const login = await trustedLogin(h, user, h.net(), b);
          const detached = await h.t.app.inject({
            method: "POST",
            url: `/v3/devices/${login.checks?.device_id}/detach`,
            headers: h.t.auth,
          });
          expect(detached.statusCode, detached.body).toBe(200);
          await h.client("visit", { user, browser: b, ip });
          return h.client("visit", { user, browser: b, ip });
        },
      },
    ],
    unset: [
      {
        why: "an IP a signed-in browser visited from (its pages need no new sign-in)",
        value: false,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.ip()];
          await trustedLogin(h, user, h.ip(), b);
          await h.client("visit", { user, browser: b, ip });
          return h.client("visit", { user, ip });
        },
      },
      {
        why: "an IP a browser with the user id the backend signed came from (identity verification)",
        value: false,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.net()];
          const secret = (await h.t.services.identity.rotate(h.t.project.id, "development")) as string;
          await h.client("visit", { user, ip, user_token: await userToken(secret, user) });
          return h.client("visit", { user, ip });
        },
      },
      {
        why: "an IP the backend evaluated the user from",
        value: false,
        run: async (h) => {
          const [user, ip] = [h.id("u"), h.ip()];
          await h.server("visit", { user, ip });
          return h.client("visit", { user, ip });
        },
      },
      {
        why: "a known user from their usual IP",
        value: false,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.ip()];
          await trustedLogin(h, user, ip, b);
          return h.client("visit", { user, browser: b, ip });
        },
      },
      {
        why: "an IP whose challenge the user passed is theirs",
        value: false,
        run: async (h) => {
          const [user, ip] = [h.id("u"), IP.tokyo];
          await trustedLogin(h, user, londonIp());
          const attempt = await h.client("login", { user, ip });
          expect(attempt.verdict).toBe("challenge");
          await h.pass(attempt.challenge?.id);
          return h.client("login", { user, ip });
        },
      },
    ],
  },
  {
    check: "is_new_network",
    set: [
      {
        why: "a known user from another /24",
        value: true,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("visit", { user, browser: b, ip: h.net() });
          return h.client("visit", { user, browser: b, ip: h.net() });
        },
      },
      {
        why: "a network seen only in a challenge nobody passed stays new",
        value: true,
        run: async (h) => {
          const [user, ip] = [h.id("u"), IP.tokyo];
          await trustedLogin(h, user, londonIp());
          expect((await h.client("login", { user, ip })).verdict).toBe("challenge");
          return h.client("login", { user, ip: ip.replace(/\.\d+$/, ".200") });
        },
      },
    ],
    unset: [
      {
        why: "another address of the same /24 (the second exit of one gateway)",
        value: false,
        run: async (h) => {
          const [user, b, ip] = [h.id("u"), h.browser(), h.net()];
          await trustedLogin(h, user, ip, b);
          return h.client("visit", { user, browser: b, ip: ip.replace(/\.\d+$/, ".200") });
        },
      },
      {
        why: "another /24 of the same carrier (a phone hopping across its carrier's pool)",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.tmobileFlorida, b);
          return h.client("visit", { user, browser: b, ip: IP.tmobileGeorgia });
        },
      },
      {
        why: "a backend evaluation without an IP: unknown (null)",
        value: null,
        run: async (h) => {
          const user = h.id("u");
          await h.server("visit", { user, ip: h.net() });
          return h.server("visit", { user });
        },
      },
    ],
  },
  {
    check: "is_new_country",
    set: {
      why: "a country the user was never let in from",
      value: true,
      run: async (h) => {
        const [user, b] = [h.id("u"), h.browser()];
        await trustedLogin(h, user, IP.newYork, b);
        return h.client("visit", { user, browser: b, ip: IP.tokyo });
      },
    },
    unset: [
      {
        why: "the country of the user's trusted evaluations",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.london2, b);
          return h.client("visit", { user, browser: b, ip: IP.grangemouth });
        },
      },
      {
        why: "a VPN exit is no country the user is in",
        value: null,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b, ip: IP.london2 });
          return h.client("visit", { user, browser: b, ip: IP.vpn });
        },
      },
      {
        why: "no trusted country to compare with (private IPs have none)",
        value: null,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b, ip: h.ip() });
          return h.client("visit", { user, browser: b, ip: IP.tokyo });
        },
      },
    ],
  },
  {
    check: "is_new_provider",
    set: {
      why: "a VPN provider the user never came in through",
      value: true,
      run: async (h) => {
        const [user, b] = [h.id("u"), h.browser()];
        await h.client("visit", { user, browser: b, ip: h.ip() });
        return h.client("visit", { user, browser: b, ip: IP.vpn });
      },
    },
    unset: [
      {
        why: "another exit of a cloud provider the user was let in through",
        value: false,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await trustedLogin(h, user, IP.aws, b);
          return h.client("visit", { user, browser: b, ip: "3.5.1.200" });
        },
      },
      { why: "a network that is no provider's", value: null, run: (h) => h.client("visit", { user: h.id("u"), ip: IP.london2 }) },
    ],
  },
  {
    check: "is_new_timezone",
    set: { why: "a time zone no browser the user was let in from was set to", value: true, run: zoneAfter("Europe/London", "Asia/Tokyo") },
    unset: [
      {
        why: "the zone of a browser the user was let in from, through a VPN on another browser (an alias names the same zone)",
        value: false,
        run: zoneAfter("Asia/Kolkata", "Asia/Calcutta"),
      },
      { why: "UTC names no place (privacy browsers and Tor report it for everyone)", value: null, run: zoneAfter("UTC", "UTC") },
      { why: "no trusted evaluation with a zone to compare with", value: null, run: zoneAfter(undefined, "Europe/London") },
    ],
  },
  {
    check: "is_new_language",
    set: [
      { why: "a language no browser the user was let in from was set to", value: true, run: languageAfter("en-GB", "es-ES") },
      {
        why: "a language only a stranger's page naming the user was set to (nobody let it in): the client id is public",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          const japanese = { languages: [["ja-JP"], ["ja-JP"]] };
          await trustedLogin(h, user, h.ip(), h.browser(undefined, { languages: [["en-GB"], ["en-GB"]] }));
          await h.client("visit", { user, ip: h.ip(), browser: h.browser(undefined, japanese) });
          return h.client("visit", { user, ip: h.ip(), browser: h.browser(undefined, japanese) });
        },
      },
    ],
    unset: [
      {
        why: "the language of a browser the user was let in from, on another browser (tags are compared canonical)",
        value: false,
        run: languageAfter("en-GB", "EN-gb"),
      },
      { why: "en-US is not en-GB: the region counts", value: true, run: languageAfter("en-GB", "en-US") },
      { why: "a value no browser reports is no language", value: null, run: languageAfter("en-GB", "<script>") },
      { why: "no trusted evaluation with a language to compare with", value: null, run: languageAfter(undefined, "en-GB") },
    ],
  },
  {
    check: "is_new_browser_family",
    set: [
      {
        why: "Firefox for a user let in only from Chrome",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, h.ip(), h.browser(WINDOWS_UA));
          return h.client("visit", { user, ip: h.ip(), browser: h.browser(FIREFOX_UA) });
        },
      },
      {
        why: "a family only a stranger's page naming the user was in (nobody let it in): the client id is public",
        value: true,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, h.ip(), h.browser(WINDOWS_UA));
          await h.client("visit", { user, ip: h.ip(), browser: h.browser(FIREFOX_UA) });
          return h.client("visit", { user, ip: h.ip(), browser: h.browser(FIREFOX_UA) });
        },
      },
    ],
    unset: [
      {
        why: "Chrome on another computer for a user let in from Chrome",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, h.ip(), h.browser(WINDOWS_UA));
          return h.client("visit", { user, ip: h.ip(), browser: h.browser(LINUX_UA) });
        },
      },
      {
        why: "an iPhone's Safari for a user let in from an iPad's: one family, phone or not",
        value: false,
        run: async (h) => {
          const user = h.id("u");
          await trustedLogin(h, user, h.ip(), h.browser(IPAD_UA));
          return h.client("visit", { user, ip: h.ip(), browser: h.phone() });
        },
      },
      {
        why: "no trusted evaluation with a family to compare with (the user's only login was never consumed)",
        value: null,
        run: async (h) => {
          const user = h.id("u");
          await h.client("login", { user, browser: h.browser(WINDOWS_UA) });
          return h.client("visit", { user, browser: h.browser(FIREFOX_UA) });
        },
      },
      { why: "no user", value: null, run: (h) => h.client("visit", { browser: h.browser(FIREFOX_UA) }) },
    ],
  },
]);
