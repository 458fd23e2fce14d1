// What every signal reads (the request, the identity step's result, the offline data) and what they produce.
import type { GeoData, GeoResult } from "../geo/index.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";

export type OsFamily = "windows" | "mac" | "ios" | "android" | "chromeos" | "linux" | "other";
export type Engine = "blink" | "gecko" | "webkit" | "other";

/** What a user agent string says of the browser (user-agent.ts), read by the client-hints signal too. */
export interface UserAgentFamily {
  os: OsFamily;
  engine: Engine;
  /** The Chromium major version a Blink user agent claims (`Chrome/142`). */
  chromium?: number;
  phone: boolean;
  /** Microsoft Edge (`Edg/`), whose client hints always name "Microsoft Edge". */
  edge: boolean;
}

export interface SignalContext {
  input: EvaluationInput;
  identity: Identity;
  geo: GeoData;
}

export interface SignalSet {
  geolocation?: GeoResult;
  userAgent: { bot: boolean; present: boolean; family?: UserAgentFamily };
  /** Disagreements between the user agent and the browser's client hints and platform (client-hints.ts). */
  clientHints: { mismatches: string[] };
  /** The WebGL renderer, and whether it is a software rasteriser (renderer.ts). */
  renderer: { name?: string; software: boolean };
  /** Window metrics of a headless browser (window-metrics.ts). */
  window: { headless: string[] };
  /** Hardware values no real device reports (hardware.ts). */
  hardware: { implausible: string[] };
  automation: { detected: boolean; markers: string[] };
  email?: { address: string; domain: string; invalid: boolean; disposable: boolean; webmail: boolean };
  /**
   * `browser` as sent; `zone` its canonical IANA name when it names a place (not UTC or an Etc/ offset, which privacy
   * browsers and Tor report for everyone), for `is_new_timezone`; `local` whether that zone is one of the IP
   * country's zones (undefined when the zone or the country is unknown); `placeless` whether it is a zone Intl knows
   * that names no place (UTC, an Etc/ offset).
   */
  timezone: { browser?: string; zone?: string; placeless?: boolean; local?: boolean; offsetHours?: number; mismatch: boolean };
  /** navigator.language, canonical (language.ts), for `is_new_language`; undefined when none or not a language tag. */
  language?: string;
  forwarding: { proxied: boolean };
  /** The IP's /24 or /48, and its ASN when the network belongs to its users (see network.ts). */
  network?: { prefix: string; asn?: number };
  content?: { hash: string; linkCount: number; hasContactInfo: boolean; spamScore: number };
}
