// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Sign-up farms (server/src/checks/families/farm.ts): noisy siblings of one build on an address, one device's sign-ups
// of the day across its networks, tokens reused for accounts on one fingerprint at one IP.
import { describeChecks } from "./harness.js";

/** A profile of one Chrome build whose audio and canvas an anti-detect browser drew anew (`k`: its draw). */
const generated = (k: number) => ({
  audio: 124.04347527516074 + (k + 1) * 1.3e-5,
  canvas: { winding: true, geometry: `data:image/png;base64,g${k}`, text: `data:image/png;base64,t${k}` },
});

describeChecks("farm", [
  {
    check: "ip_noisy_siblings_day",
    set: {
      why: "a second never-seen browser of one build signing up from one IP with another audio output and canvas",
      value: 1,
      run: async (h) => {
        const ip = h.ip();
        await h.client("signup", { ip, browser: h.browser(undefined, generated(1)) });
        return h.client("signup", { ip, browser: h.browser(undefined, generated(2)) });
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
        why: "a profile's page view is no sign-up",
        value: 0,
        run: async (h) => {
          const ip = h.ip();
          await h.client("signup", { ip, browser: h.browser(undefined, generated(1)) });
          return h.client("visit", { ip, browser: h.browser(undefined, generated(2)) });
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
        await h.client("signup", { ip: `${net}.1`, browser: h.browser(undefined, generated(1)) });
        return h.client("signup", { ip: `${net}.2`, browser: h.browser(undefined, generated(2)) });
      },
    },
    unset: {
      why: "the same profiles from two /24s",
      value: 0,
      run: async (h) => {
        await h.client("signup", { ip: `${h.network()}.1`, browser: h.browser(undefined, generated(1)) });
        return h.client("signup", { ip: `${h.network()}.1`, browser: h.browser(undefined, generated(2)) });
      },
    },
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
