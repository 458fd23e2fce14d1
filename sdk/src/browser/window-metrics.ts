// Window and screen sizes (docs/detection.md): plain environment values, read under either consent level, that tell a headless
// browser (an 800×600 screen, a window without a frame, an outer window of 0×0) from a person's. The server decides
// what they mean (`headless_window`); the SDK reports what it reads.
import type { WindowMetrics } from "../contract/evaluation.js";

/** A size as the contract takes it: a whole number of CSS pixels, or nothing for a value a page cannot trust. */
function size(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 100_000 ? Math.round(v) : undefined;
}

export function windowMetrics(): WindowMetrics | undefined {
  try {
    return {
      outer_width: size(window.outerWidth),
      outer_height: size(window.outerHeight),
      inner_width: size(window.innerWidth),
      inner_height: size(window.innerHeight),
      screen_width: size(screen.width),
      screen_height: size(screen.height),
    };
  } catch {
    // A page whose window or screen throws (a hostile wrapper) sends none.
    return undefined;
  }
}
