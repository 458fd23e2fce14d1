// Signal: the browser's time zone against the IP's location. No time-zone database is needed: the zone's UTC
// offset now is compared with the solar offset of the IP's longitude (15° per hour). More than 3.5 hours apart
// (wider than any country's legal-versus-solar gap plus DST) means the browser is far from its IP: a VPN or proxy.
import type { SignalContext, SignalSet } from "./types.js";

const MISMATCH_HOURS = 3.5;
const offsets = new Map<string, Intl.DateTimeFormat | null>();

export function utcOffsetHours(timeZone: string, at: number): number | undefined {
  let fmt = offsets.get(timeZone);
  if (fmt === undefined) {
    try {
      fmt = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    } catch {
      fmt = null;
    }
    offsets.set(timeZone, fmt);
  }
  if (!fmt) return undefined;
  const name = fmt.formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "";
  const m = /GMT([+-])(\d{1,2})(?::(\d{2}))?/.exec(name);
  if (!m) return name === "GMT" ? 0 : undefined;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) + Number(m[3] ?? 0) / 60);
}

export function timezone({ input }: SignalContext, geo: SignalSet["geolocation"]): SignalSet["timezone"] {
  const fromComponent = input.signals.components?.timezone?.value;
  const browser = input.signals.timezone ?? (typeof fromComponent === "string" ? fromComponent : undefined);
  if (!browser) return { mismatch: false };
  const offsetHours = utcOffsetHours(browser, input.at);
  if (offsetHours === undefined || geo?.longitude === undefined) return { browser, offsetHours, mismatch: false };
  let diff = Math.abs(offsetHours - geo.longitude / 15);
  if (diff > 12) diff = 24 - diff;
  return { browser, offsetHours, mismatch: diff > MISMATCH_HOURS };
}
