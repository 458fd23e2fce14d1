// Checks of sign-up farms (docs/detection.md, "Sign-up farms"): never-seen browsers signing up from one address whose
// components look generated (noise between profiles of one build), and one device's sign-ups of the day on any of its
// networks (storage cleared, home line and phone alternating). Sign-ups, and the noisy siblings of a login among logins; 0 elsewhere.
import { signupFarm } from "../../facts/farm.js";
import { defineCheck } from "../define.js";

const needs = [signupFarm] as const;

export const checks = [
  defineCheck({
    name: "ip_noisy_siblings_day",
    type: "number",
    doc: "Never-seen browsers that signed up from this IP within the day with this never-seen browser's exact build (user agent, brand, platform, OS version, architecture) but another audio output, or with its GPU too but another canvas, while this build's never-seen browsers are half or more of those that signed up there that day (Brave adds noise by design: a few among a residence's are not counted). Only where this browser itself looks generated: the audio outputs are compared only when no other never-seen browser presented its own with its build within 30 days, the canvases only when none presented its own with its GPU (a real browser's values are others' too, so a stranger's forged requests cannot make it a farm's). 0 for a browser seen before and outside sign-ups.",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.signupFarm.siblings.ip,
  }),
  defineCheck({
    name: "network_noisy_siblings_day",
    type: "number",
    doc: "The same from this IP's /24 (IPv4) or /48 (IPv6).",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.signupFarm.siblings.network,
  }),
  defineCheck({
    name: "provider_noisy_siblings_day",
    type: "number",
    doc: "The same through this IP's cloud, VPN or proxy provider's ASN (0 on other networks).",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.signupFarm.siblings.provider,
  }),
  defineCheck({
    name: "login_noisy_siblings_day",
    type: "number",
    doc: "On a login from a never-seen browser: never-seen browsers that logged in (into any account) within the day with its exact build but another audio output, or with its GPU too but another canvas, the most from this IP, its /24 (/48) or its cloud, VPN or proxy provider's ASN, while this build's never-seen browsers are half or more of those that logged in there that day, and only where its own audio output (canvas) no other never-seen browser presented with its build (GPU) within 30 days. 0 for a browser seen before and outside logins.",
    reason: "fingerprint_churn",
    needs,
    compute: (c) => c.facts.signupFarm.login,
  }),
  defineCheck({
    name: "fingerprint_signups_day",
    type: "number",
    doc: "Sign-ups from this identifying fingerprint within the day on any network, popular or not, this one included (0 for a fingerprint that does not identify a browser, and outside sign-ups).",
    reason: "shared_fingerprint",
    needs,
    compute: (c) => c.facts.signupFarm.device.signups,
  }),
  defineCheck({
    name: "fingerprint_signups_elsewhere_day",
    type: "number",
    doc: "Of those, the sign-ups from another network (/24, /48) than this request's.",
    reason: "shared_fingerprint",
    needs,
    compute: (c) => c.facts.signupFarm.device.elsewhere,
  }),
  defineCheck({
    name: "fingerprint_ip_reused_tokens_day",
    type: "number",
    doc: "Visitor tokens that signed up two accounts or more with exactly this fingerprint (identifying or not) from this IP within the day, this sign-up included: one phone opening account after account keeps its token for some of them, a phone shop sets up each new phone on its own (0 outside sign-ups).",
    reason: "shared_fingerprint_at_ip",
    needs,
    compute: (c) => c.facts.signupFarm.reusedTokens,
  }),
] as const;
