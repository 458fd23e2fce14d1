// Verify unfamiliar logins (docs/detection.md, "Trusted history"): a known account from somewhere it was never let in
// from. Networks, countries, zones, languages and places are the account's trusted history's (the familiarity ledger and
// the trusted places): a stranger's attempts never make anything familiar. Each way in is named below.
import { knownAccount, neverSeenBrowser, notAnonymising } from "./conditions.js";
import { all, any, defaultPolicy, emailChallenge, eq, exists, gte, named, ne, notIn } from "./rules.js";

/**
 * Another country, unless the browser is set to a zone of this country and either that zone is one the account was let
 * in with before (the owner's phone, which took the zone on arriving, let in while roaming on its home carrier or the
 * day before, and whose storage was cleared since) or, on a phone or tablet, its language is (the owner's new phone
 * abroad: it takes the local zone from the network and keeps its owner's language). A stranger's browser keeps the
 * stranger's language, an anti-detect browser takes the proxy country's with its zone (and is a computer, as the rigs
 * of stuffing tools are), and a browser set to the victim's home zone is not in this country.
 */
const anotherCountry = named(
  "another country, unless set to a zone of it the account was let in with (or, a phone or tablet, to its language)",
  all(
    eq("is_new_country", true),
    any(
      ne("timezone_in_ip_country", true),
      all(ne("is_new_timezone", false), any(ne("is_new_language", false), notIn("device_type", ["mobile", "tablet"]))),
    ),
  ),
);

/**
 * An account never let in from a place (only through VPNs, proxies or datacenters): an ordinary network anywhere with a
 * zone the account was never let in with. The owner's own phone at home is set to the zone of the computer that came
 * through the VPN.
 */
const neverLetInFromAPlace = named(
  "an account never let in from a place, on an ordinary network with a zone it was never let in with",
  all(exists("is_new_country", false), eq("is_new_timezone", true), notAnonymising, eq("ip_is_hosting", false)),
);

/**
 * The account's country, far from every place it was let in from (beyond the geolocations' accuracy), with a browser
 * whose clock is hours away from here and set to a zone the account was never let in with: a stranger's computer behind
 * a residential proxy in the victim's country. The owner's new browser at the office or at a friend's is near home, a
 * laptop away keeps the account's zone, and a phone on a trip takes the zone of the network it is on.
 */
const farFromHomeWithAForeignClock = named(
  "500 km or more from the account's places, with a clock hours away, in a zone it was never let in with",
  all(gte("distance_from_trusted_km", 500), eq("timezone_mismatch", true), ne("is_new_timezone", false)),
);

/**
 * The account's country, however near its places, with a browser set to a zone the account was never let in with (a
 * named zone, not UTC) whose clock is hours away from here, or on a computer whatever its clock: a stranger on a
 * residential proxy chosen in the victim's own city or country. The owner's new browser near home is set to the zone of
 * the place, or to the account's.
 */
const nearHomeWithAForeignClock = named(
  "in the account's country, with a clock hours away (on a computer, any clock), in a named zone it was never let in with",
  all(
    // A trusted place in this country (null: none, or an address that places no one).
    exists("distance_from_trusted_km", true),
    eq("is_new_timezone", true),
    // A phone takes the zone of the network it is on; a computer keeps the zone it was set to, which for its owner is
    // the account's (or, on a trip, the account's home zone). A computer in the account's country set to a named zone
    // the account never had is a stranger's rig, however near its clock: a residential proxy in the victim's country
    // with the proxy country's main zone, or a neighbouring country's zone one hour off.
    any(eq("timezone_mismatch", true), notIn("device_type", ["mobile", "tablet"])),
  ),
);

/**
 * The account's country, with a browser set to a zone of no part of it (a named zone, not UTC) and to a language,
 * neither of which the account was ever let in with: a stranger's own settings behind a residential proxy in the
 * victim's country. Read where the account's places say nothing (its owner let in only on a carrier's addresses, which
 * place no one, so no distance is measured) as well as near them. The owner's new browser at home is set to a zone of
 * the country it is in or to one the account had, and keeps the account's language; an expat's is set to their home
 * zone and language, which their account was let in with.
 */
const inItsCountryWithAStrangersSettings = named(
  "in the account's country, set to a zone of no part of it and a language, neither of which the account was let in with",
  all(eq("is_new_country", false), eq("is_new_timezone", true), eq("timezone_in_ip_country", false), eq("is_new_language", true)),
);

/**
 * Through a datacenter or an anonymising network, the browser's own settings are what is left of its owner: a zone the
 * account was never let in with, or a familiar zone with a language the account was never let in with. A VPN or a
 * company's gateway moves the exit, not the computer's clock nor its language, so the owner's new browser carries both;
 * a stranger who happens to share the victim's zone (a neighbour country's capital, the victim's own city) still has
 * their own language.
 */
const strangersSettings = named(
  "a zone the account was never let in with, or its zone with a language it was never let in with",
  any(ne("is_new_timezone", false), eq("is_new_language", true)),
);

/**
 * A datacenter, unless the account came through this provider before or the browser is set to a time zone and a
 * language the account was let in with (a company's gateway from the laptop at home).
 */
const newDatacenter = named(
  "a datacenter the account never came through, in a zone or a language it was never let in with (or with the account's own components on a new token)",
  all(eq("ip_is_hosting", true), eq("is_new_provider", true), any(strangersSettings, eq("is_recognised_device", true))),
);

/**
 * A new browser on a new network (not its /24, nor its carrier's or ISP's ASN) and somewhere the account was never let
 * in from: another country, or a datacenter. A second phone at home, a laptop's first login at the office and a phone
 * hopping across its carrier are none of these.
 */
const newBrowserSomewhereNew = named(
  "a new browser on a new network, somewhere the account was never let in from",
  all(
    neverSeenBrowser,
    eq("is_new_ip", true),
    eq("is_new_network", true),
    any(
      anotherCountry,
      neverLetInFromAPlace,
      farFromHomeWithAForeignClock,
      nearHomeWithAForeignClock,
      inItsCountryWithAStrangersSettings,
      newDatacenter,
    ),
  ),
);

/**
 * An anonymising network from a new browser (a known browser on another exit of its VPN is its owner), unless the
 * account came in through this VPN or proxy provider before, or the browser is set to a time zone and a language the
 * account was let in with (a VPN moves the exit, not the computer's zone nor its language); Tor always. The account's
 * own components on a new visitor token through a provider it never came through are challenged whatever their zone: a
 * zone is one of the components, so a copy of the user's browser carries the user's zone wherever it connects from,
 * and only the backend's vouching makes that browser the user's (docs/security.md). Through the account's own VPN
 * provider such a browser is its owner's private window or cleared storage as the owner's zone is: a copy there needs
 * the provider the victim uses, the knowledge any browser set to the victim's zone needs to pass.
 */
const newBrowserBehindAnonymiser = named(
  "a new browser through an anonymising network the account never used, in a zone or a language it was never let in with, or with the account's own components on a new token (Tor always)",
  all(
    eq("ip_is_anonymous", true),
    neverSeenBrowser,
    any(all(ne("is_new_provider", false), any(strangersSettings, eq("is_recognised_device", true))), eq("ip_is_tor", true)),
  ),
);

export default defaultPolicy("challenge-ato", {
  name: "Verify unfamiliar logins",
  description:
    "A known account logging in from a new browser on a new network in another country than those it was let in from (unless set to a time zone of that country it was let in with, or a phone or tablet set to a zone of that country and to a language it was let in with), or in its country with a clock hours away (a computer: any clock) set to a time zone it was never let in with (near its places a named zone, not UTC), or set to a zone of no part of it and a language, neither of which it was let in with, or, never let in from a place, set to a time zone it was never let in with, or a datacenter, from a new address after impossible travel, or from a new browser through an anonymising network (Tor always; another, unless the account came through its provider before) set to a time zone the account was never let in with, or to its zone with a language it was never let in with, or presenting the account's own browser's components on a new token (networks, countries, zones and places from the account's trusted history), or claiming an email or phone other than the account's (the code goes to the stored one).",
  actions: ["login"],
  priority: 600,
  verdict: "challenge",
  challenge: emailChallenge("account_takeover"),
  conditions: all(
    knownAccount,
    any(
      newBrowserSomewhereNew,
      named("impossible travel to a new address", all(eq("impossible_travel", true), eq("is_new_ip", true))),
      // The code goes to the stored contact, not the one claimed.
      eq("contact_mismatch", true),
      newBrowserBehindAnonymiser,
    ),
  ),
});
