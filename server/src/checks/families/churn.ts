// Checks of fingerprint churn (docs/detection.md, "Account-independent login rules and fingerprint churn"): never-seen
// identifying fingerprints first presented from this IP, its /24 (/48) or its cloud, VPN or proxy provider's ASN, this
// one included. An anti-detect browser draws a new canvas, GPU, audio and fonts on every attempt; honest browsers are
// new once.
import { churn } from "../../facts/churn.js";
import { defineCheck } from "../define.js";

const needs = [churn] as const;

export const checks = [
  defineCheck({
    name: "ip_new_fingerprints",
    type: "number",
    doc: "Never-seen identifying fingerprints first presented from this IP in the last hour, this one included.",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.churn.hour.ip,
  }),
  defineCheck({
    name: "network_new_fingerprints",
    type: "number",
    doc: "The same from this IP's /24 (IPv4) or /48 (IPv6).",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.churn.hour.network,
  }),
  defineCheck({
    name: "provider_new_fingerprints",
    type: "number",
    doc: "The same from this IP's provider ASN when it is a cloud, VPN or proxy provider's (0 otherwise).",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.churn.hour.provider,
  }),
  // The same over the day: an anti-detect run paced under any hourly count (low and slow) still draws a new browser
  // per attempt.
  defineCheck({
    name: "ip_new_fingerprints_day",
    type: "number",
    doc: "Never-seen identifying fingerprints first presented from this IP within the day (24 hours), this one included.",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.churn.day.ip,
  }),
  defineCheck({
    name: "network_new_fingerprints_day",
    type: "number",
    doc: "The same from this IP's /24 (IPv4) or /48 (IPv6), within the day.",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.churn.day.network,
  }),
  defineCheck({
    name: "provider_new_fingerprints_day",
    type: "number",
    doc: "The same from this IP's cloud, VPN or proxy provider's ASN, within the day (0 elsewhere).",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.churn.day.provider,
  }),
] as const;
