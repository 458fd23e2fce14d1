// Parts of conditions that several default policies share, by name (policies/defaults/rules.ts): one definition each,
// so that a fix to what "a datacenter or an anonymising network" means reaches every policy that says it.
import { any, eq, named } from "./rules.js";

/** A browser the account never signed in on (is_new_fingerprint: docs/identity.md). */
export const neverSeenBrowser = eq("is_new_fingerprint", true);

/** An account the service met before. */
export const knownAccount = eq("is_new_user", false);

/** An account never confirmed by the backend (a login that named it first, docs/identity.md). */
export const unconfirmedAccount = eq("is_provisional_user", true);

export const newBrowserOrAccount = named(
  "a browser new to the account, or an account the service never met",
  any(neverSeenBrowser, eq("is_new_user", true)),
);

export const datacenterOrAnonymous = named(
  "a datacenter or an anonymising network",
  any(eq("ip_is_hosting", true), eq("ip_is_anonymous", true)),
);

export const throwawayEmail = named("a disposable or invalid email", any(eq("email_is_disposable", true), eq("email_is_invalid", true)));

/** The browser's zone is no part of the IP's country (a rig keeps its own zone: docs/detection.md). */
export const zoneOutsideCountry = eq("timezone_in_ip_country", false);

/** Not through a VPN, a proxy network or Tor, whose exit its user picks anywhere. */
export const notAnonymising = eq("ip_is_anonymous", false);
