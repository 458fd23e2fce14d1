// Parts of conditions that several default policies share, by name (policies/defaults/rules.ts): one definition each,
// so that a fix to what "a datacenter or an anonymising network" means reaches every policy that says it.
import { all, any, eq, gte, named, not } from "./rules.js";

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

/**
 * A place new to the account: neither its network (/24, /48, or the ASN of a network its users own) nor its cloud, VPN
 * or proxy provider is one the account was let in from (trusted history), or no account the service ever let in. What
 * a network's or a provider's counts may challenge: those counts are of requests anyone there can send with the public
 * client id, so a stranger sharing a campus's NAT, a carrier's or a VPN's exits could otherwise inflate them and
 * challenge everyone there. A stuffer's victims never were let in from its proxy or its rig's network; a stranger
 * cannot make an honest account's own network new to it (docs/decisions/shared-network-poisoning.md).
 */
export const placeNewToAccount = named(
  "a network and a provider the account was never let in from",
  all(not(eq("is_new_network", false)), not(eq("is_new_provider", false))),
);

/**
 * Ten or more accounts named from this address within the hour, into an account never let in from that network or
 * provider (anyone there can name accounts: placeNewToAccount). Denied from a datacenter ("Deny credential stuffing"),
 * challenged elsewhere ("Verify logins that cycle through accounts"): a stranger sharing a NAT, a carrier's address or
 * a VPN's exit can fill the count, and a code costs the owner one email where a denial locks them out
 * (docs/decisions/stuffing-deny-on-rented-hosts.md).
 */
export const manyAccountsOnOneAddress = named(
  "ten accounts named from this address within the hour, into an account never let in there",
  all(gte("ip_user_count", 10), placeNewToAccount),
);
