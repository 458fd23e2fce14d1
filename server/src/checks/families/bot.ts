// Checks of automation (docs/detection.md, "Bots: what the server checks itself"): what the browser says about itself,
// and what the server finds when it compares the user agent with what the browser reports (signals/, one file each).
import { defineCheck } from "../define.js";

export const checks = [
  defineCheck({
    name: "is_bot",
    type: "boolean",
    doc: "A bot by its own markers, its user agent, a headless window, or a forged user agent on a machine that draws without a GPU or has hardware no device has. A software renderer or a user-agent switcher alone is not a bot.",
    reason: "bot_detected",
    compute: (c) =>
      c.signals.automation.detected ||
      c.signals.userAgent.bot ||
      c.signals.window.headless.length > 0 ||
      (c.signals.clientHints.mismatches.length > 0 && (c.signals.renderer.software || c.signals.hardware.implausible.length > 0)),
  }),
  defineCheck({
    name: "bot_user_agent",
    type: "boolean",
    doc: "The user agent names itself a bot, crawler or HTTP library.",
    reason: "bot_user_agent",
    compute: (c) => c.signals.userAgent.bot,
  }),
  defineCheck({
    name: "client_automation",
    type: "boolean",
    doc: "Client-side automation markers: navigator.webdriver, a HeadlessChrome user agent, driver globals.",
    reason: "automation_detected",
    compute: (c) => c.signals.automation.detected,
  }),
  defineCheck({
    name: "user_agent_mismatch",
    type: "boolean",
    doc: "The user agent contradicts the browser's client hints or navigator.platform (another system, another Chromium version, a phone hint under a desktop agent or the reverse).",
    reason: "user_agent_mismatch",
    compute: (c) => c.signals.clientHints.mismatches.length > 0,
  }),
  defineCheck({
    name: "software_renderer",
    type: "boolean",
    doc: "WebGL is drawn by a software rasteriser (SwiftShader, llvmpipe, …).",
    reason: "software_renderer",
    compute: (c) => c.signals.renderer.software,
  }),
  defineCheck({
    name: "headless_window",
    type: "boolean",
    doc: "On a desktop user agent, an outer window of 0×0, or a frameless window on the 800×600 headless default screen.",
    reason: "headless_window",
    compute: (c) => c.signals.window.headless.length > 0,
  }),
  defineCheck({
    name: "implausible_hardware",
    type: "boolean",
    doc: "Hardware values no device reports (cores outside 1–256, a phone without touch, a Direct3D GPU outside Windows, …).",
    reason: "implausible_hardware",
    compute: (c) => c.signals.hardware.implausible.length > 0,
  }),
] as const;
