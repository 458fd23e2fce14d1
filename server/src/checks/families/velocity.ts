// Checks of velocity (docs/detection.md): evaluations of this user, IP and browser within their windows
// (facts/velocity.ts), the current one included.
import { velocity } from "../../facts/velocity.js";
import { defineCheck } from "../define.js";

/** Velocity limits per window (facts/velocity.ts): beyond any person's pace, well within a script's. */
const HIGH_VELOCITY = { user: 60, ip: 120, fingerprint: 60 };

const needs = [velocity] as const;

export const checks = [
  defineCheck({
    name: "has_high_velocity",
    type: "boolean",
    doc: "More than 60 evaluations of this user within the hour, 120 of this IP or 60 of this browser within 10 minutes.",
    reason: "high_velocity",
    needs,
    compute: (c) =>
      c.facts.velocity.userEvents + 1 > HIGH_VELOCITY.user ||
      c.facts.velocity.ipEvents + 1 > HIGH_VELOCITY.ip ||
      c.facts.velocity.fingerprintEvents + 1 > HIGH_VELOCITY.fingerprint,
  }),
  // Counts include the current evaluation.
  defineCheck({
    name: "event_count",
    type: "number",
    doc: "Evaluations of this user within the hour, this one included (0 without a user).",
    reason: "high_velocity",
    needs,
    compute: (c) => (c.identity.user || c.input.user ? c.facts.velocity.userEvents + 1 : 0),
  }),
  defineCheck({
    name: "ip_event_count",
    type: "number",
    doc: "Evaluations from this IP within 10 minutes, this one included (0 without an IP).",
    reason: "high_velocity",
    needs,
    compute: (c) => (c.input.ip ? c.facts.velocity.ipEvents + 1 : 0),
  }),
  defineCheck({
    name: "fingerprint_event_count",
    type: "number",
    doc: "Evaluations of this browser's fingerprint within 10 minutes, this one included (0 without a fingerprint).",
    reason: "high_velocity",
    needs,
    compute: (c) => (c.identity.fingerprint ? c.facts.velocity.fingerprintEvents + 1 : 0),
  }),
] as const;
