// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Sign-up farms (server/src/checks/families/farm.ts): noisy siblings of one build on an address or a provider (sign-ups,
// and logins apart), one device's sign-ups of the day across its networks, tokens reused for accounts on one
// fingerprint at one IP.
import { type Browser, describeChecks, type Harness } from "./harness.js";

let draws = 0;
/**
 * A profile of one Chrome build whose audio and canvas an anti-detect browser drew anew: no other profile's, in this
 * case or another (a browser's own values that others present are a real browser's: server/src/facts/farm.ts).
 */
const generated = () => {
  const k = ++draws;
  return {
    audio: 124.04347527516074 + k * 1.3e-5,
    canvas: { winding: true, geometry: `data:image/png;base64,g${k}`, text: `data:image/png;base64,t${k}` },
  };
};

/** A Brave of the same version on the test browsers' machine: Chrome's user agent, its own brand, its audio noised. */
const brave = (h: Harness): Browser => {
  const b = h.browser(undefined, { audio: 124.04347527516074 + 4e-7 });
  const uad = b.components.userAgentData?.value as Record<string, unknown>;
  return { ...b, components: { ...b.components, userAgentData: { value: { ...uad, brands: ["Brave"] } } } };
};

describeChecks("farm", [
  {
    check: "ip_noisy_siblings_day",
    set: {
      why: "a second never-seen browser of one build signing up from one IP with another audio output and canvas",
      value: 1,
      run: async (h) => {
        const ip = h.ip();
        await h.client("signup", { ip, browser: h.browser(undefined, generated()) });
        return h.client("signup", { ip, browser: h.browser(undefined, generated()) });
      },
    },
    unset: [
      {
        why: "two real browsers of one build (their own fonts, one audio output, one canvas) signing up from one IP",
        value: 0,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { ip });
          return h.client("signup", { ip });
        },
      },
      {
        why: "a real browser of the build after a stranger's forged sign-up of it there: its audio and canvas are other browsers' too",
        value: 0,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { ip: h.ip() });
          await h.client("signup", { ip, browser: h.browser(undefined, generated()) });
          return h.client("signup", { ip });
        },
      },
      {
        why: "a profile's page view is no sign-up",
        value: 0,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { ip, browser: h.browser(undefined, generated()) });
          return h.client("visit", { ip, browser: h.browser(undefined, generated()) });
        },
      },
    ],
  },
  {
    check: "network_noisy_siblings_day",
    set: {
      why: "profiles of one build with other audio outputs signing up from two addresses of one /24",
      value: 1,
      run: async (h) => {
        const net = h.network();
        await h.client("signup", { ip: `${net}.1`, browser: h.browser(undefined, generated()) });
        return h.client("signup", { ip: `${net}.2`, browser: h.browser(undefined, generated()) });
      },
    },
    unset: {
      why: "the same profiles from two /24s",
      value: 0,
      run: async (h) => {
        await h.client("signup", { ip: `${h.network()}.1`, browser: h.browser(undefined, generated()) });
        return h.client("signup", { ip: `${h.network()}.1`, browser: h.browser(undefined, generated()) });
      },
    },
  },
  {
    check: "provider_noisy_siblings_day",
    set: {
      why: "profiles of one build with other audio outputs signing up through two exits of one VPN provider, on two /24s",
      value: 1,
      run: async (h) => {
        await h.client("signup", { ip: "89.187.161.20", browser: h.browser(undefined, generated()) });
        return h.client("signup", { ip: "89.187.162.20", browser: h.browser(undefined, generated()) });
      },
    },
    unset: [
      {
        why: "two real browsers of one build (one audio output, one canvas) signing up through one cloud provider",
        value: 0,
        run: async (h) => {
          await h.client("signup", { ip: "3.5.2.20", browser: h.browser() });
          return h.client("signup", { ip: "3.5.3.20", browser: h.browser() });
        },
      },
      {
        why: "the same profiles on an ordinary network's two /24s: no provider",
        value: 0,
        run: async (h) => {
          await h.client("signup", { ip: `${h.network()}.1`, browser: h.browser(undefined, generated()) });
          return h.client("signup", { ip: `${h.network()}.1`, browser: h.browser(undefined, generated()) });
        },
      },
    ],
  },
  {
    check: "login_noisy_siblings_day",
    set: [
      {
        why: "a second never-seen browser of one build logging in from one IP with another audio output and canvas (any account)",
        value: 1,
        run: async (h) => {
          const ip = h.net();
          await h.client("login", { ip, user: h.id("leaked"), browser: h.browser(undefined, generated()) });
          return h.client("login", { ip, user: h.id("leaked"), browser: h.browser(undefined, generated()) });
        },
      },
      {
        why: "profiles of one build logging in through two exits of one VPN provider's ASN, on two /24s",
        value: 1,
        run: async (h) => {
          await h.client("login", { ip: "89.187.170.20", user: h.id("leaked"), browser: h.browser(undefined, generated()) });
          return h.client("login", { ip: "89.187.171.20", user: h.id("leaked"), browser: h.browser(undefined, generated()) });
        },
      },
    ],
    unset: [
      {
        why: "an office's first logins: three real browsers of one build (their own fonts, one audio output, one canvas) on one IP",
        value: 0,
        run: async (h) => {
          const ip = h.net();
          await h.client("login", { ip, user: h.id("staff"), browser: h.browser() });
          await h.client("login", { ip, user: h.id("staff"), browser: h.browser() });
          return h.client("login", { ip, user: h.id("staff"), browser: h.browser() });
        },
      },
      {
        why: "a real browser of the build after a stranger's forged login of it there: its audio and canvas are other browsers' too",
        value: 0,
        run: async (h) => {
          const ip = h.net();
          await h.client("login", { ip: h.net(), user: h.id("staff") });
          await h.client("login", { ip, user: h.id("leaked"), browser: h.browser(undefined, generated()) });
          return h.client("login", { ip, user: h.id("staff") });
        },
      },
      {
        why: "a Brave beside a Chrome of one version (one user agent; Brave noises audio and canvas by design): two builds",
        value: 0,
        run: async (h) => {
          const ip = h.net();
          await h.client("login", { ip, user: h.id("home"), browser: h.browser() });
          return h.client("login", { ip, user: h.id("home"), browser: brave(h) });
        },
      },
      {
        why: "profiles signing up are counted apart, as sign-ups",
        value: 0,
        run: async (h) => {
          const ip = h.net();
          await h.client("signup", { ip, browser: h.browser(undefined, generated()) });
          return h.client("login", { ip, user: h.id("leaked"), browser: h.browser(undefined, generated()) });
        },
      },
      {
        why: "a profile's second login on its own token is no never-seen browser",
        value: 0,
        run: async (h) => {
          const [ip, b] = [h.net(), h.browser(undefined, generated())];
          await h.client("login", { ip, user: h.id("leaked"), browser: h.browser(undefined, generated()) });
          await h.client("login", { ip, user: h.id("leaked"), browser: b });
          return h.client("login", { ip, user: h.id("leaked"), browser: b });
        },
      },
    ],
  },
  {
    check: "fingerprint_signups_day",
    set: {
      why: "a computer's third sign-up of the day, its storage cleared before each, from three networks",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("signup", { ip: h.ip(), browser: { ...b, token: `tok-${h.id("c")}-xxxxxxxx` } });
        await h.client("signup", { ip: h.ip(), browser: { ...b, token: `tok-${h.id("c")}-xxxxxxxx` } });
        return h.client("signup", { ip: h.ip(), browser: { ...b, token: `tok-${h.id("c")}-xxxxxxxx` } });
      },
    },
    unset: {
      why: "a phone model's components (every owner's) are not counted",
      value: 0,
      run: async (h) => {
        const ip = h.ip();
        await h.client("signup", { ip, browser: h.phone() });
        return h.client("signup", { ip, browser: h.phone() });
      },
    },
  },
  {
    check: "fingerprint_signups_elsewhere_day",
    set: {
      why: "a computer's sign-up at home after one through its phone's connection",
      value: 1,
      run: async (h) => {
        const b = h.browser();
        await h.client("signup", { ip: `${h.network()}.1`, browser: { ...b, token: `tok-${h.id("c")}-xxxxxxxx` } });
        return h.client("signup", { ip: `${h.network()}.1`, browser: { ...b, token: `tok-${h.id("c")}-xxxxxxxx` } });
      },
    },
    unset: {
      why: "a family computer's two sign-ups on one home line",
      value: 0,
      run: async (h) => {
        const [b, ip] = [h.browser(), h.ip()];
        await h.client("signup", { ip, browser: b });
        return h.client("signup", { ip, browser: b });
      },
    },
  },
  {
    check: "fingerprint_ip_reused_tokens_day",
    set: {
      why: "one phone's token signing up a second account at one address",
      value: 1,
      run: async (h) => {
        const [b, ip] = [h.phone(), h.ip()];
        await h.client("signup", { ip, browser: b });
        return h.client("signup", { ip, browser: b });
      },
    },
    unset: {
      why: "a phone shop's new phones of one model, one token each",
      value: 0,
      run: async (h) => {
        const ip = h.ip();
        await h.client("signup", { ip, browser: h.phone() });
        await h.client("signup", { ip, browser: h.phone() });
        return h.client("signup", { ip, browser: h.phone() });
      },
    },
  },
]);
