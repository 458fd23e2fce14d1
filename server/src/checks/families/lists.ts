// The request's own values (docs/detection.md): what policies compare with a value and what the customer's lists may
// hold (facts/lists.ts, listValues), and the lists that hold any of them (in_list).
import { lists } from "../../facts/lists.js";
import { defineCheck } from "../define.js";

export const checks = [
  defineCheck({
    name: "in_list",
    type: "string[]",
    doc: "The ids of the lists that hold one of the request's values (user id, IP, email or its domain, phone, fingerprint, device, IP country), sorted.",
    reason: "in_list",
    needs: [lists],
    compute: (c) => [...new Set(c.facts.lists.map((l) => l.list_id))].sort(),
  }),
  defineCheck({
    name: "action",
    type: "string",
    doc: "The action evaluated (login, signup, access, a custom one).",
    reason: "action",
    compute: (c) => c.input.action,
  }),
  defineCheck({
    name: "user_id",
    type: "string",
    doc: "The customer's user id the request names.",
    reason: "user_id",
    compute: (c) => c.input.user ?? null,
  }),
  defineCheck({
    name: "ip",
    type: "string",
    doc: "The client IP.",
    reason: "ip",
    compute: (c) => c.input.ip ?? null,
  }),
  defineCheck({
    name: "email",
    type: "string",
    doc: "The email the request names, normalised.",
    reason: "email",
    compute: (c) => c.signals.email?.address ?? null,
  }),
  defineCheck({
    name: "email_domain",
    type: "string",
    doc: "The domain of that email.",
    reason: "email_domain",
    compute: (c) => c.signals.email?.domain ?? null,
  }),
  defineCheck({
    name: "phone",
    type: "string",
    doc: "The phone the request names.",
    reason: "phone",
    compute: (c) => c.input.phone ?? null,
  }),
  defineCheck({
    name: "fingerprint_id",
    type: "string",
    doc: "The browser's fingerprint id.",
    reason: "fingerprint_id",
    compute: (c) => c.identity.fingerprint?.row.id ?? null,
  }),
  defineCheck({
    name: "device_id",
    type: "string",
    doc: "The browser's device id.",
    reason: "device_id",
    compute: (c) => c.identity.device?.row.id ?? null,
  }),
  defineCheck({
    name: "device_type",
    type: "string",
    doc: "The device's type by its user agent: computer, tablet or mobile.",
    reason: "device_type",
    compute: (c) => c.identity.deviceType,
  }),
] as const;
