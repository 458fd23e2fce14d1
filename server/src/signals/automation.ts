// Signal: automation markers the browser SDK reported (webdriver, headless, BotD). Client-side evidence only:
// enough to challenge, never alone to deny (open-source detectors misfire on privacy browsers).
import type { SignalContext, SignalSet } from "./types.js";

export function automation({ input }: SignalContext): SignalSet["automation"] {
  const a = input.signals.automation;
  const markers = new Set<string>(a?.markers ?? []);
  if (a?.webdriver) markers.add("webdriver");
  if (a?.headless) markers.add("headless");
  if (a?.bot) markers.add(a.bot_kind ? `bot:${a.bot_kind}` : "bot");
  return { detected: markers.size > 0, markers: [...markers].sort() };
}
