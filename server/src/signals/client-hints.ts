// Signal: does the user agent agree with what the browser itself reports (`user_agent_mismatch`)?
// Chromium browsers send client hints (`Sec-CH-UA`, `Sec-CH-UA-Platform`, `Sec-CH-UA-Mobile` on every secure request)
// and expose them to the SDK (FingerprintJS's `userAgentData`); every browser exposes `navigator.platform`
// (FingerprintJS's `platform`). A stealth bot sets a user agent and forgets the rest: a Windows user agent from a
// Chromium whose hints say Linux and whose platform is `Linux x86_64`, a Chrome 120 user agent from a Chromium 156.
//
// What real browsers send, and is never a mismatch:
// - Safari, Firefox (also with resistFingerprinting, which spoofs the user agent and the platform alike) and Chrome on
//   iOS send no client hints: absent hints are no evidence.
// - Android and desktop Linux report each other's platform: Chrome's "request desktop site" sends a Linux user agent
//   from Android, Android reports `Linux armv8l`; ChromeOS reports `Linux x86_64`. An iPad asking for the desktop
//   site says "Macintosh" and FingerprintJS reports its platform as `iPad`. These pairs are compatible.
// - Brave, Opera, Vivaldi and Samsung Internet name their own brands beside "Chromium", with Chromium's version.
// An attacker gains nothing by sending inconsistent hints; by sending none they only lose this check, not the others.

import type { OsFamily, SignalContext, SignalSet, UserAgentFamily } from "./types.js";

/** Families that honest browsers report for one another (see above); `other` is unknown and agrees with anything. */
const COMPATIBLE: ReadonlyArray<readonly [OsFamily, OsFamily]> = [
  ["linux", "android"],
  ["linux", "chromeos"],
  ["mac", "ios"],
];

export function compatible(a: OsFamily, b: OsFamily): boolean {
  if (a === b || a === "other" || b === "other") return true;
  return COMPATIBLE.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}

/** The family of a client-hint platform (`Sec-CH-UA-Platform`, `navigator.userAgentData.platform`). */
export function hintFamily(platform: string): OsFamily {
  switch (platform.replace(/"/g, "").trim().toLowerCase()) {
    case "windows":
      return "windows";
    case "macos":
      return "mac";
    case "linux":
      return "linux";
    case "android":
      return "android";
    case "chrome os":
    case "chromium os":
      return "chromeos";
    case "ios":
      return "ios";
    default:
      return "other";
  }
}

/** The family of `navigator.platform` as FingerprintJS reports it (`Win32`, `MacIntel`, `iPhone`, `Linux armv8l`…). */
export function navigatorPlatformFamily(platform: string): OsFamily {
  if (/^Win/i.test(platform)) return "windows";
  if (/^(iPhone|iPad|iPod)/i.test(platform)) return "ios";
  if (/^Mac/i.test(platform)) return "mac";
  if (/^Android/i.test(platform)) return "android";
  if (/^Linux/i.test(platform)) return "linux";
  return "other";
}

/** Brands and versions of a `Sec-CH-UA` header: `"Chromium";v="142", "Google Chrome";v="142", "Not_A Brand";v="99"`. */
export function parseBrands(header: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of header.matchAll(/"([^"]*)"\s*;\s*v\s*=\s*"(\d+)/g)) out.set(m[1] as string, Number(m[2]));
  return out;
}

const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(",") : v);

interface UserAgentData {
  brands?: unknown;
  mobile?: unknown;
  platform?: unknown;
}

/** The codes of every disagreement between the user agent and the browser's own reports (empty when none). */
export function userAgentMismatches(
  family: UserAgentFamily,
  hints: { ua?: string; platform?: string; mobile?: string },
  uaData: UserAgentData | undefined,
  navigatorPlatform: string | undefined,
): string[] {
  const out: string[] = [];
  const dataBrands = Array.isArray(uaData?.brands) ? uaData.brands.filter((b): b is string => typeof b === "string") : [];
  const brands = hints.ua ? parseBrands(hints.ua) : new Map<string, number>();
  // Only Chromium browsers have client hints (a Chromium with an overridden user agent and no metadata sends none).
  if ((brands.size > 0 || dataBrands.length > 0) && family.engine !== "blink") out.push("hints_from_chromium");
  const platforms = [hints.platform, typeof uaData?.platform === "string" ? uaData.platform : undefined];
  if (platforms.some((p) => p && !compatible(family.os, hintFamily(p)))) out.push("platform_hint");
  const chromium = brands.get("Chromium");
  if (family.engine === "blink" && family.chromium !== undefined && chromium !== undefined && chromium !== family.chromium)
    out.push("version_hint");
  const mobile = hints.mobile === "?1" || uaData?.mobile === true;
  const desktop = hints.mobile === "?0" || uaData?.mobile === false;
  if ((mobile && (family.os === "windows" || family.os === "mac")) || (desktop && family.phone && family.engine === "blink"))
    out.push("mobile_hint");
  const names = brands.size > 0 ? [...brands.keys()] : dataBrands;
  if (family.edge && names.length > 0 && !names.includes("Microsoft Edge")) out.push("brand_hint");
  if (navigatorPlatform && !compatible(family.os, navigatorPlatformFamily(navigatorPlatform))) out.push("navigator_platform");
  return out;
}

export function clientHints({ input }: SignalContext, ua: SignalSet["userAgent"]): SignalSet["clientHints"] {
  if (!ua.family) return { mismatches: [] };
  const c = input.signals.components;
  const uaData = c?.userAgentData?.value;
  const platform = c?.platform?.value;
  return {
    mismatches: userAgentMismatches(
      ua.family,
      {
        ua: header(input.headers["sec-ch-ua"]),
        platform: header(input.headers["sec-ch-ua-platform"]),
        mobile: header(input.headers["sec-ch-ua-mobile"]),
      },
      uaData && typeof uaData === "object" ? (uaData as UserAgentData) : undefined,
      typeof platform === "string" ? platform : undefined,
    ),
  };
}
