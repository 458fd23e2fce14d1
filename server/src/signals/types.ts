// What every signal reads (the request, the identity step's result, the offline data) and what they produce.
import type { GeoData, GeoResult } from "../geo/index.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";

export interface SignalContext {
  input: EvaluationInput;
  identity: Identity;
  geo: GeoData;
}

export interface SignalSet {
  geolocation?: GeoResult;
  userAgent: { bot: boolean; present: boolean };
  automation: { detected: boolean; markers: string[] };
  email?: { address: string; domain: string; invalid: boolean; disposable: boolean; webmail: boolean };
  timezone: { browser?: string; offsetHours?: number; mismatch: boolean };
  forwarding: { proxied: boolean };
  content?: { hash: string; linkCount: number; hasContactInfo: boolean; spamScore: number };
}
