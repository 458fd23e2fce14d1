// Signal: a user agent that names itself a bot, crawler or HTTP library (isbot's maintained pattern list).
import { isbot } from "isbot";
import type { SignalContext, SignalSet } from "./types.js";

export function userAgent({ input }: SignalContext): SignalSet["userAgent"] {
  const ua = input.userAgent?.trim();
  return { present: !!ua, bot: ua ? isbot(ua) : false };
}
