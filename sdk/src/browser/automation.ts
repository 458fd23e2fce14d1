// Automation markers (docs/client-api.md): cheap, synchronous tells of a driven or headless browser. The server decides
// what they mean (the `client_automation` and `is_bot` checks); the SDK only reports what it sees.
import type { Automation } from "../contract/evaluation.js";

type Probe = [marker: string, test: () => boolean];

// Each probe is independent and wrapped, so one hostile or broken property cannot stop the others.
const PROBES: Probe[] = [
  ["webdriver", () => navigator.webdriver === true],
  ["headless_user_agent", () => /HeadlessChrome|PhantomJS|SlimerJS/i.test(navigator.userAgent)],
  ["no_languages", () => !navigator.languages || navigator.languages.length === 0],
  // Desktop Chrome always exposes its built-in PDF viewer plugins; headless builds and some drivers have none.
  [
    "no_plugins",
    () => /Chrome\//.test(navigator.userAgent) && !/Android|Mobile/.test(navigator.userAgent) && navigator.plugins.length === 0,
  ],
  ["missing_window_chrome", () => /Chrome\//.test(navigator.userAgent) && !("chrome" in window)],
  ["zero_outer_size", () => window.outerWidth === 0 && window.outerHeight === 0],
  [
    "driver_globals",
    () => ["_phantom", "callPhantom", "__nightmare", "_selenium", "domAutomation", "__webdriver_script_fn"].some((k) => k in window),
  ],
  ["chromedriver_marker", () => Object.keys(document).some((k) => k.startsWith("$cdc_") || k.startsWith("$wdc_"))],
];

export function automationSignals(): Automation {
  const markers: string[] = [];
  for (const [marker, test] of PROBES) {
    try {
      if (test()) markers.push(marker);
    } catch {
      // A throwing getter is itself unusual but not evidence enough to report.
    }
  }
  return {
    webdriver: markers.includes("webdriver"),
    headless: markers.includes("headless_user_agent"),
    markers,
  };
}
