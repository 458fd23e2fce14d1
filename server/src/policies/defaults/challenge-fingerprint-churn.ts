// Verify sign-ups from browser farms (docs/detection.md, "Account-independent login rules and fingerprint churn"): on a
// cloud, VPN or proxy provider only, since an office or a campus behind one address sees new browsers too.
import { neverSeenBrowser, notAnonymising, zoneOutsideCountry } from "./conditions.js";
import { all, any, defaultPolicy, emailChallenge, eq, gte, named } from "./rules.js";

/**
 * A datacenter (not a VPN, whose exit its user picks anywhere) that presented another never-seen browser within the
 * day, to a browser set to a time zone of no part of the datacenter's country: a farm's rig keeps its own zone from one
 * sign-up to the next. Unless the clock is near and the address a work one: staff behind their company's gateway in
 * the next country sign up with the company's email.
 */
const farmRigKeepsItsZone = named(
  "a farm's rig keeps its own zone: a datacenter presenting never-seen browsers set to a zone of no part of its country",
  all(
    eq("ip_is_hosting", true),
    notAnonymising,
    zoneOutsideCountry,
    gte("provider_new_fingerprints_day", 2),
    any(eq("timezone_mismatch", true), eq("email_is_webmail", true)),
  ),
);

/**
 * A farm's profiles on one address, wherever it comes from (a home line, a residential /24), or through one cloud, VPN
 * or proxy provider's ASN (its exits span many /24s): never-seen browsers of one build (user agent, brand, platform,
 * OS version, architecture) that signed up there within the day with another audio
 * output, or with the same GPU and another canvas. Real browsers of one build agree on both; an anti-detect browser
 * draws them anew for every profile. A campus, an office or a family signs up on real, consistent devices.
 */
const generatedSiblings = named(
  "a farm's profiles: never-seen browsers of one build whose audio or canvas differ, signing up on one address or through one provider",
  any(gte("ip_noisy_siblings_day", 1), gte("network_noisy_siblings_day", 1), gte("provider_noisy_siblings_day", 1)),
);

export default defaultPolicy("challenge-fingerprint-churn", {
  name: "Verify sign-ups from browser farms",
  description:
    "A sign-up from a never-seen browser through a cloud, VPN or proxy provider that presented three or more never-seen browsers within an hour, or five or more within a day (an anti-detect browser draws a new canvas, GPU, audio and fonts per attempt); or through a datacenter that presented another within the day, to a browser set to a time zone of no part of the datacenter's country (a farm's rig keeps its own zone), with a clock hours away or a webmail address (a company's gateway in the next country signs its staff up with work addresses); or from any address (a home line, a residential /24), or through a provider, where another never-seen browser of the same build signed up within the day with another audio output, or with the same GPU and another canvas (real browsers of one build agree on both; an anti-detect browser draws them anew for every profile).",
  actions: ["signup"],
  priority: 520,
  verdict: "challenge",
  challenge: emailChallenge("fake_account"),
  conditions: all(
    neverSeenBrowser,
    any(
      gte("provider_new_fingerprints", 3),
      // A farm paced under the hourly count (low and slow).
      gte("provider_new_fingerprints_day", 5),
      farmRigKeepsItsZone,
      generatedSiblings,
    ),
  ),
});
