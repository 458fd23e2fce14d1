// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Fingerprint churn (server/src/checks/families/churn.ts): never-seen identifying browsers per IP, network and provider.
import { above, DAY, describeChecks, HOUR, IP, later } from "./harness.js";

describeChecks("churn", [
  {
    check: "ip_new_fingerprints",
    set: {
      why: "a third never-seen browser from one IP within the hour",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        await h.client("visit", { ip });
        return h.client("visit", { ip });
      },
    },
    unset: [
      {
        why: "a browser already seen elsewhere is not new here",
        value: 0,
        run: async (h) => {
          const b = h.browser();
          await h.client("visit", { browser: b, ip: h.ip() });
          return h.client("visit", { browser: b, ip: h.ip() });
        },
      },
      {
        why: "the same browser again counts once",
        value: 1,
        run: async (h) => {
          const [b, ip] = [h.browser(), h.ip()];
          await h.client("visit", { browser: b, ip });
          return h.client("visit", { browser: b, ip });
        },
      },
    ],
  },
  {
    check: "network_new_fingerprints",
    set: {
      why: "never-seen browsers from two addresses of one /24",
      value: 2,
      run: async (h) => {
        const net = h.network();
        await h.client("visit", { ip: `${net}.1` });
        return h.client("visit", { ip: `${net}.2` });
      },
    },
    unset: {
      why: "a browser already seen elsewhere, on a /24 of its own",
      value: 0,
      run: async (h) => {
        const b = h.browser();
        await h.client("visit", { browser: b, ip: h.ip() });
        return h.client("visit", { browser: b, ip: `${h.network()}.1` });
      },
    },
  },
  {
    check: "provider_new_fingerprints",
    set: { why: "a never-seen browser through a cloud provider", value: above(0), run: (h) => h.client("visit", { ip: IP.aws }) },
    unset: { why: "a never-seen browser on a network that is no provider's", value: 0, run: (h) => h.client("visit", { ip: h.net() }) },
  },
  {
    check: "ip_new_fingerprints_day",
    set: {
      why: "a third never-seen browser from one IP over five hours (each hour holds one)",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        await later(2.5 * HOUR, () => h.client("visit", { ip }));
        return later(5 * HOUR, () => h.client("visit", { ip }));
      },
    },
    unset: {
      why: "a never-seen browser a day after another from its IP counts itself alone",
      value: 1,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        return later(DAY + HOUR, () => h.client("visit", { ip }));
      },
    },
  },
  {
    check: "network_new_fingerprints_day",
    set: {
      why: "never-seen browsers from two addresses of one /24, three hours apart",
      value: 2,
      run: async (h) => {
        const net = h.network();
        await h.client("visit", { ip: `${net}.1` });
        return later(3 * HOUR, () => h.client("visit", { ip: `${net}.2` }));
      },
    },
    unset: {
      why: "a browser already seen elsewhere, on a /24 of its own",
      value: 0,
      run: async (h) => {
        const b = h.browser();
        await h.client("visit", { browser: b, ip: h.ip() });
        return h.client("visit", { browser: b, ip: `${h.network()}.1` });
      },
    },
  },
  {
    check: "provider_new_fingerprints_day",
    set: {
      why: "never-seen browsers through one cloud provider, hours apart",
      value: above(1),
      run: async (h) => {
        await h.client("visit", { ip: IP.aws });
        return later(3 * HOUR, () => h.client("visit", { ip: IP.aws }));
      },
    },
    unset: { why: "a never-seen browser on a network that is no provider's", value: 0, run: (h) => h.client("visit", { ip: h.net() }) },
  },
]);
