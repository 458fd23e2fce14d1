// Signal: the window of a headless browser (`headless_window`), from the window and screen sizes the SDK
// reports (`signals.window`). A desktop browser's window has a frame and toolbars around the page, on a screen that is
// the size of a real display; headless Chromium has a default 800×600 screen and a window exactly the page's size,
// and old headless builds report an outer window of 0×0.
// - Only desktop user agents are judged: phones, tablets and in-app web views legitimately report an outer size equal
//   to the page's, or 0.
// - A fullscreen (F11) or kiosk window is frameless too, which is why the frameless window counts only on the 800×600
//   headless default screen: displays of that size have not been sold for twenty years.
// - Old SDKs send no sizes: nothing to judge. An attacker who forges normal sizes only loses this check.
import type { SignalContext, SignalSet } from "./types.js";

const DESKTOP = new Set(["windows", "mac", "linux", "chromeos"]);

export function windowMetrics({ input }: SignalContext, ua: SignalSet["userAgent"]): SignalSet["window"] {
  const w = input.signals.window;
  if (!w || !ua.family || ua.family.phone || !DESKTOP.has(ua.family.os)) return { headless: [] };
  const out: string[] = [];
  if (w.outer_width === 0 && w.outer_height === 0) out.push("zero_outer_window");
  const frameless = w.outer_width !== undefined && w.outer_width === w.inner_width && w.outer_height === w.inner_height;
  if (frameless && w.screen_width === 800 && w.screen_height === 600) out.push("headless_screen");
  return { headless: out };
}
