// Signal: what the user agent says it is. `bot`: a user agent that names itself a bot, crawler or HTTP library
// (isbot's maintained pattern list). `os`, `engine`, `chromium`, `phone`: the operating system family, the browser
// engine, the Chromium major version and whether it is a phone, which the bot checks compare with what the browser
// itself reports (client hints, navigator.platform, the GPU, the window): a user agent is one header, the rest is the
// browser's own behaviour, and a stealth bot rewrites the first far more often than all the others.
import { isbot } from "isbot";
import { BoundedMap } from "../caches.js";
import type { Engine, OsFamily, SignalContext, SignalSet, UserAgentFamily } from "./types.js";

/** isbot's verdict and the family, by user agent string: regex-heavy, and traffic repeats a few thousand agents. */
const parsed = new BoundedMap<string, { bot: boolean; family: UserAgentFamily }>(5000);

export function userAgentFamily(ua: string): UserAgentFamily {
  // iOS first: every iOS browser is WebKit, and an iPad's UA may also say "Mac OS X".
  const os: OsFamily = /Windows Phone/.test(ua)
    ? "other"
    : /Windows/.test(ua)
      ? "windows"
      : /iPhone|iPad|iPod/.test(ua)
        ? "ios"
        : /Android/.test(ua)
          ? "android"
          : /CrOS/.test(ua)
            ? "chromeos"
            : /Macintosh|Mac OS X/.test(ua)
              ? "mac"
              : /Linux|X11/.test(ua)
                ? "linux"
                : "other";
  const chrome = /(?:Chrome|Chromium)\/(\d+)/.exec(ua);
  const engine: Engine =
    os === "ios"
      ? "webkit"
      : chrome
        ? "blink"
        : /Firefox\/|\brv:[\d.]+\) Gecko\/\d/.test(ua)
          ? "gecko"
          : /AppleWebKit\//.test(ua)
            ? "webkit"
            : "other";
  const phone = (os === "android" && /Mobile/.test(ua)) || (os === "ios" && /iPhone|iPod/.test(ua));
  return { os, engine, ...(engine === "blink" && chrome ? { chromium: Number(chrome[1]) } : {}), phone, edge: /\bEdg\//.test(ua) };
}

export function userAgent({ input }: SignalContext): SignalSet["userAgent"] {
  const ua = input.userAgent?.trim();
  if (!ua) return { present: false, bot: false };
  let hit = parsed.get(ua);
  if (hit === undefined) {
    hit = { bot: isbot(ua), family: userAgentFamily(ua) };
    parsed.set(ua, hit);
  }
  return { present: true, bot: hit.bot, family: hit.family };
}
