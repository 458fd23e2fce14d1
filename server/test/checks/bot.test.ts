// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Automation (server/src/checks/families/bot.ts): client markers and what the server finds in the browser's own behaviour.
import { BOT_UA, describeChecks, LINUX_HINTS, LINUX_UA, ON_LINUX, SWIFTSHADER, WINDOWS_UA } from "./harness.js";

describeChecks("bot", [
  {
    check: "is_bot",
    set: [
      { why: "a bot user agent", value: true, run: (h) => h.client("visit", { ua: BOT_UA }) },
      { why: "automation markers from the browser", value: true, run: (h) => h.client("visit", { automation: { headless: true } }) },
      {
        why: "no markers, but a forged user agent on a software renderer",
        value: true,
        run: (h) => h.client("visit", { ua: WINDOWS_UA, browser: h.browser(WINDOWS_UA, { ...ON_LINUX, webGlBasics: SWIFTSHADER }) }),
      },
    ],
    unset: [
      { why: "a desktop browser without markers", value: false, run: (h) => h.client("visit") },
      {
        why: "a software renderer alone (a Linux desktop without GPU drivers)",
        value: false,
        run: (h) =>
          h.client("visit", {
            ua: LINUX_UA,
            browser: h.browser(LINUX_UA, { ...ON_LINUX, webGlBasics: SWIFTSHADER }),
            headers: LINUX_HINTS,
          }),
      },
    ],
  },
  {
    check: "bot_user_agent",
    set: { why: "an HTTP library's user agent", value: true, run: (h) => h.client("visit", { ua: BOT_UA }) },
    unset: {
      why: "a browser user agent, even with client automation markers",
      value: false,
      run: (h) => h.client("visit", { automation: { webdriver: true } }),
    },
  },
  {
    check: "client_automation",
    set: { why: "webdriver reported by the browser", value: true, run: (h) => h.client("visit", { automation: { webdriver: true } }) },
    unset: { why: "a bot user agent without client markers", value: false, run: (h) => h.client("visit", { ua: BOT_UA }) },
  },
  {
    check: "user_agent_mismatch",
    set: [
      {
        why: "a Windows user agent from a browser whose platform is Linux x86_64",
        value: true,
        run: (h) => h.client("visit", { ua: WINDOWS_UA, browser: h.browser(WINDOWS_UA, ON_LINUX) }),
      },
      {
        why: "client hints saying Linux under a Windows user agent",
        value: true,
        run: (h) =>
          h.client("visit", {
            ua: WINDOWS_UA,
            browser: h.browser(WINDOWS_UA, { platform: "Win32" }),
            headers: { "sec-ch-ua": '"Chromium";v="142"', "sec-ch-ua-platform": '"Linux"', "sec-ch-ua-mobile": "?0" },
          }),
      },
    ],
    unset: [
      {
        why: "a Linux Chrome whose hints and platform agree",
        value: false,
        run: (h) => h.client("visit", { ua: LINUX_UA, browser: h.browser(LINUX_UA, ON_LINUX), headers: LINUX_HINTS }),
      },
      {
        why: "Firefox spoofing Windows everywhere (resistFingerprinting)",
        value: false,
        run: (h) => {
          const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0";
          return h.client("visit", { ua, browser: h.browser(ua, { platform: "Win32", userAgentData: undefined }) });
        },
      },
    ],
  },
  {
    check: "software_renderer",
    set: {
      why: "WebGL drawn by SwiftShader",
      value: true,
      run: (h) => h.client("visit", { browser: h.browser(undefined, { webGlBasics: SWIFTSHADER }) }),
    },
    unset: { why: "WebGL drawn by a GPU", value: false, run: (h) => h.client("visit", { browser: h.browser() }) },
  },
  {
    check: "headless_window",
    set: {
      why: "the 800×600 headless screen with a window exactly the page's size",
      value: true,
      run: (h) =>
        h.client("visit", {
          window: { outer_width: 800, outer_height: 600, inner_width: 800, inner_height: 600, screen_width: 800, screen_height: 600 },
        }),
    },
    unset: [
      {
        why: "a fullscreen window on a real display",
        value: false,
        run: (h) =>
          h.client("visit", {
            window: {
              outer_width: 1920,
              outer_height: 1080,
              inner_width: 1920,
              inner_height: 1080,
              screen_width: 1920,
              screen_height: 1080,
            },
          }),
      },
      { why: "an SDK that sends no sizes", value: false, run: (h) => h.client("visit") },
    ],
  },
  {
    check: "implausible_hardware",
    set: {
      why: "3 GB of device memory (Chromium reports powers of two)",
      value: true,
      run: (h) => h.client("visit", { browser: h.browser(undefined, { deviceMemory: 3 }) }),
    },
    unset: { why: "8 cores and 8 GB", value: false, run: (h) => h.client("visit", { browser: h.browser() }) },
  },
]);
