// Checks of credential stuffing (docs/identity.md): logins on provisional users (accounts the backend never confirmed)
// by this browser, its fingerprint, its IP and its network within the hour and the day, this one included when it is one.
import { attempts } from "../../facts/attempts.js";
import { networkOf } from "../../geo/ip.js";
import type { AttemptCounts } from "../../store/login-attempts.js";
import { type CheckContext, defineCheck } from "../define.js";
import { isProvisional } from "./identity.js";

type Ctx = CheckContext<readonly [typeof attempts]>;

/** Logins on provisional users by one key, this one included when it is one; 0 when the request lacks the key. */
const count = (c: Ctx, key: keyof AttemptCounts, present: boolean): number =>
  present ? c.facts.attempts[key] + (c.input.action === "login" && isProvisional(c) ? 1 : 0) : 0;

const needs = [attempts] as const;

export const checks = [
  defineCheck({
    name: "device_provisional_attempts",
    type: "number",
    doc: "Distinct unconfirmed accounts tried from this browser (its visitor token, else its device) within the hour, the current one included.",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "device", !!c.identity.device),
  }),
  defineCheck({
    name: "fingerprint_provisional_attempts",
    type: "number",
    doc: "The same from this stored fingerprint within the hour (a browser clearing its storage between attempts).",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "fingerprint", !!c.identity.fingerprint),
  }),
  defineCheck({
    name: "ip_provisional_attempts",
    type: "number",
    doc: "The same from this IP within the hour.",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "ip", !!c.input.ip),
  }),
  defineCheck({
    name: "network_provisional_attempts",
    type: "number",
    doc: "The same from this IP's /24 (IPv4) or /48 (IPv6) within the hour.",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "network", !!networkOf(c.input.ip)),
  }),
  // The same over the day: one attempt every 20 minutes is three an hour, and 72 a day.
  defineCheck({
    name: "device_provisional_attempts_day",
    type: "number",
    doc: "Distinct unconfirmed accounts tried from this browser within the day (24 hours), the current one included.",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "deviceDay", !!c.identity.device),
  }),
  defineCheck({
    name: "fingerprint_provisional_attempts_day",
    type: "number",
    doc: "The same from this stored fingerprint within the day (a browser clearing its storage between attempts).",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "fingerprintDay", !!c.identity.fingerprint),
  }),
  defineCheck({
    name: "ip_provisional_attempts_day",
    type: "number",
    doc: "The same from this IP within the day.",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "ipDay", !!c.input.ip),
  }),
  defineCheck({
    name: "network_provisional_attempts_day",
    type: "number",
    doc: "The same from this IP's /24 (IPv4) or /48 (IPv6) within the day.",
    reason: "unconfirmed_logins",
    needs,
    compute: (c) => count(c, "networkDay", !!networkOf(c.input.ip)),
  }),
] as const;
