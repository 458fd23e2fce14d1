// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Velocity (server/src/checks/families/velocity.ts): evaluations per user, IP and browser within their windows.
import { describeChecks } from "./harness.js";

describeChecks("velocity", [
  {
    check: "has_high_velocity",
    set: {
      why: "a user's 61st evaluation within the hour (60 is beyond a person's pace)",
      value: true,
      run: async (h) => {
        const user = h.id("u");
        for (let i = 0; i < 60; i++)
          await h.t.app.inject({ method: "POST", url: "/v3/evaluate/visit", headers: h.t.auth, payload: { user } });
        return h.server("visit", { user });
      },
    },
    unset: {
      why: "a few evaluations of a user",
      value: false,
      run: async (h) => {
        const user = h.id("u");
        for (let i = 0; i < 3; i++) await h.server("visit", { user });
        return h.server("visit", { user });
      },
    },
  },
  {
    check: "event_count",
    set: {
      why: "a user's third evaluation in the window",
      value: 3,
      run: async (h) => {
        const user = h.id("u");
        await h.server("visit", { user });
        await h.server("visit", { user });
        return h.server("visit", { user });
      },
    },
    unset: { why: "a user's first evaluation (itself only)", value: 1, run: (h) => h.server("visit", { user: h.id("u") }) },
  },
  {
    check: "ip_event_count",
    set: {
      why: "the third evaluation from one IP in the window",
      value: 3,
      run: async (h) => {
        const ip = h.ip();
        await h.client("visit", { ip });
        await h.client("visit", { ip });
        return h.client("visit", { ip });
      },
    },
    unset: { why: "the first evaluation from an IP (itself only)", value: 1, run: (h) => h.client("visit", { ip: h.ip() }) },
  },
  {
    check: "fingerprint_event_count",
    set: {
      why: "the third evaluation of one browser in the window",
      value: 3,
      run: async (h) => {
        const b = h.browser();
        await h.client("visit", { browser: b });
        await h.client("visit", { browser: b });
        return h.client("visit", { browser: b });
      },
    },
    unset: { why: "a browser's first evaluation (itself only)", value: 1, run: (h) => h.client("visit", { browser: h.browser() }) },
  },
]);
