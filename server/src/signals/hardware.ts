// Signal: a hardware profile no real device has (`implausible_hardware`), from FingerprintJS's components
// against the user agent. Each rule names values that real browsers never report:
// - `hardwareConcurrency` outside 1–256 or not a whole number (Brave farbles it between 2 and the real count, Firefox
//   rounds it to 4 or 8: both plausible);
// - `deviceMemory` (Chromium only) other than a power of two from 0.25 to 64 GB: Chromium reports only those;
// - a phone without touch points (a desktop emulating a phone's user agent), or a phone drawing with a software
//   rasteriser (an emulator on a server);
// - a GPU of another operating system: Direct3D (Windows only) under a non-Windows user agent, Apple's GPUs or Metal
//   under a Windows or Android one (Linux is left out: Asahi Linux runs on Apple GPUs);
// - a screen with a side of 0.
// Two cores alone are not implausible: many honest laptops, Chromebooks and phones have two.
import type { SignalContext, SignalSet } from "./types.js";

const MEMORY = new Set([0.25, 0.5, 1, 2, 4, 8, 16, 32, 64]);

export function hardware({ input }: SignalContext, ua: SignalSet["userAgent"], renderer: SignalSet["renderer"]): SignalSet["hardware"] {
  const c = input.signals.components ?? {};
  const out: string[] = [];
  const cores = c.hardwareConcurrency?.value;
  if (cores !== undefined && (typeof cores !== "number" || !Number.isInteger(cores) || cores < 1 || cores > 256)) out.push("cores");
  const memory = c.deviceMemory?.value;
  if (memory !== undefined && (typeof memory !== "number" || !MEMORY.has(memory))) out.push("memory");
  const family = ua.family;
  if (family?.phone) {
    const touch = c.touchSupport?.value as { maxTouchPoints?: unknown } | undefined;
    if (touch && typeof touch === "object" && touch.maxTouchPoints === 0) out.push("phone_without_touch");
    if (renderer.software) out.push("phone_software_renderer");
  }
  const gpu = renderer.name ?? "";
  if (family && gpu) {
    if (/Direct3D|\bD3D(9|11|12)\b/i.test(gpu) && family.os !== "windows" && family.os !== "other") out.push("gpu_of_another_os");
    else if (/\bApple (M\d|GPU)|\bMetal\b/i.test(gpu) && (family.os === "windows" || family.os === "android"))
      out.push("gpu_of_another_os");
  }
  const screen = c.screenResolution?.value;
  if (Array.isArray(screen) && screen.some((s) => s === 0)) out.push("screen");
  return { implausible: out };
}
