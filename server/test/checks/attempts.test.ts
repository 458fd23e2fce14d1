// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Logins on accounts the backend never confirmed, by browser, fingerprint, IP and network (server/src/checks/families/attempts.ts).
import { confirmedAgain, DAY, describeChecks, HOUR, later } from "./harness.js";

describeChecks("attempts", [
  {
    check: "device_provisional_attempts",
    set: {
      why: "one browser's third login on unconfirmed users within the hour",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: b });
        await h.client("login", { user: h.id("u"), browser: b });
        return h.client("login", { user: h.id("u"), browser: b });
      },
    },
    unset: { why: "a confirmed account logging in again on its browser", value: 0, run: (h) => confirmedAgain(h) },
  },
  {
    check: "fingerprint_provisional_attempts",
    set: {
      why: "three logins on unconfirmed users from one browser clearing its storage between them",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-1` } });
        await h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-2` } });
        return h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-3` } });
      },
    },
    unset: [
      { why: "a sign-up on a new browser", value: 0, run: (h) => h.client("signup", { user: h.id("u"), browser: h.browser() }) },
      {
        why: "one unconfirmed account retried three times from one browser on three networks is one account",
        value: 1,
        run: async (h) => {
          const [user, b] = [h.id("u"), h.browser()];
          await h.client("login", { user, browser: b, ip: h.net() });
          await h.client("login", { user, browser: b, ip: h.net() });
          return h.client("login", { user, browser: b, ip: h.net() });
        },
      },
    ],
  },
  {
    check: "ip_provisional_attempts",
    set: {
      why: "three logins on unconfirmed users from three browsers at one IP",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        await h.client("login", { user: h.id("u"), ip });
        return h.client("login", { user: h.id("u"), ip });
      },
    },
    unset: { why: "a sign-up from its own IP", value: 0, run: (h) => h.client("signup", { user: h.id("u"), ip: h.ip() }) },
  },
  {
    check: "network_provisional_attempts",
    set: {
      why: "three logins on unconfirmed users from three addresses of one /24",
      value: 3,
      run: async (h) => {
        const net = h.network();
        await h.client("login", { user: h.id("u"), ip: `${net}.11` });
        await h.client("login", { user: h.id("u"), ip: `${net}.12` });
        return h.client("login", { user: h.id("u"), ip: `${net}.13` });
      },
    },
    unset: {
      why: "a sign-up from a network of its own",
      value: 0,
      run: (h) => h.client("signup", { user: h.id("u"), ip: `${h.network()}.1` }),
    },
  },
  {
    check: "device_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from one browser on three networks, two hours apart (each hour holds one)",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: b, ip: h.net() });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), browser: b, ip: h.net() }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), browser: b, ip: h.net() }));
      },
    },
    unset: {
      why: "a login on an unconfirmed user a day after another from its browser counts itself alone",
      value: 1,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: b, ip: h.net() });
        return later(DAY + HOUR, () => h.client("login", { user: h.id("u"), browser: b, ip: h.net() }));
      },
    },
  },
  {
    check: "fingerprint_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from one browser clearing its storage between them, two hours apart",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-1` }, ip: h.net() });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-2` }, ip: h.net() }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), browser: { ...b, token: `${b.token}-3` }, ip: h.net() }));
      },
    },
    unset: { why: "a confirmed account logging in again on its browser", value: 0, run: (h) => confirmedAgain(h) },
  },
  {
    check: "ip_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from one IP, two hours apart (each hour holds one)",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), ip }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), ip }));
      },
    },
    unset: {
      why: "a login on an unconfirmed user a day after another from its IP counts itself alone",
      value: 1,
      run: async (h) => {
        const ip = h.ip();
        await h.client("login", { user: h.id("u"), ip });
        return later(DAY + HOUR, () => h.client("login", { user: h.id("u"), ip }));
      },
    },
  },
  {
    check: "network_provisional_attempts_day",
    set: {
      why: "three logins on unconfirmed users from three addresses of one /24, two hours apart",
      value: 3,
      run: async (h) => {
        const net = h.network();
        await h.client("login", { user: h.id("u"), ip: `${net}.11` });
        await later(2 * HOUR, () => h.client("login", { user: h.id("u"), ip: `${net}.12` }));
        return later(4 * HOUR, () => h.client("login", { user: h.id("u"), ip: `${net}.13` }));
      },
    },
    unset: {
      why: "a sign-up from a network of its own",
      value: 0,
      run: (h) => h.client("signup", { user: h.id("u"), ip: `${h.network()}.1` }),
    },
  },
]);
