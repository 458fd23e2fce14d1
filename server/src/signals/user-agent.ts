// Signal: a user agent that names itself a bot, crawler or HTTP library (isbot's maintained pattern list).
import { isbot } from "isbot";
import { BoundedMap } from "../caches.js";
import type { SignalContext, SignalSet } from "./types.js";

/** isbot's verdict by user agent string: one large regex per call, and traffic repeats a few thousand agents. */
const verdicts = new BoundedMap<string, boolean>(5000);

function isBotCached(ua: string): boolean {
  let v = verdicts.get(ua);
  if (v === undefined) {
    v = isbot(ua);
    verdicts.set(ua, v);
  }
  return v;
}

export function userAgent({ input }: SignalContext): SignalSet["userAgent"] {
  const ua = input.userAgent?.trim();
  return { present: !!ua, bot: ua ? isBotCached(ua) : false };
}
