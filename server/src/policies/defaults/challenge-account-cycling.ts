// Verify logins that cycle through accounts: what credential stuffing leaves, whatever the account it names
// (docs/detection.md, "Account-independent login rules and fingerprint churn"). Each branch below is one way a run
// shows, named; the policy is any of them. Whatever the account, the code goes to its owner.
import {
  datacenterOrAnonymous,
  knownAccount,
  manyAccountsOnOneAddress,
  neverSeenBrowser,
  newBrowserOrAccount,
  notAnonymising,
  placeNewToAccount,
  unconfirmedAccount,
  zoneOutsideCountry,
} from "./conditions.js";
import { all, any, defaultPolicy, emailChallenge, eq, gte, lte, named } from "./rules.js";

/**
 * From a datacenter or an anonymising network, a few unconfirmed accounts are enough, for an account never let in
 * through it (a VPN's exit is shared with strangers: placeNewToAccount).
 */
const fewFromDatacenter = named(
  "a few unconfirmed accounts from a datacenter or an anonymising network",
  all(gte("ip_provisional_attempts", 3), datacenterOrAnonymous, placeNewToAccount),
);

/**
 * Many unconfirmed accounts tried from one address or one /24 within the hour, whatever the browser: for an account
 * never let in there (a stranger behind a campus's NAT can name made-up accounts too: placeNewToAccount).
 */
const manyUnconfirmedHere = named(
  "many unconfirmed accounts tried from this address or network within the hour, into an account never let in there",
  all(any(gte("ip_provisional_attempts", 10), gte("network_provisional_attempts", 20)), placeNewToAccount),
);

/**
 * Ten or more accounts named from this address within the hour, from a datacenter, an anonymising network or a
 * never-seen browser (an office behind one NAT is none of these), into an account never let in there: what "Deny
 * credential stuffing" denies from a datacenter, challenged everywhere else. A stranger sharing a campus's or a
 * carrier's NAT or a VPN's exit can name ten accounts there; the owner passes a code, the stuffer cannot
 * (docs/decisions/stuffing-deny-on-rented-hosts.md).
 */
const manyAccountsHere = named(
  "ten accounts named from this address within the hour, from a datacenter, an anonymising network or a never-seen browser",
  all(manyAccountsOnOneAddress, any(eq("ip_is_hosting", true), eq("ip_is_anonymous", true), neverSeenBrowser)),
);

/**
 * Unconfirmed accounts tried from never-seen browsers, several of each on one network within the hour; into an account
 * never let in from there (placeNewToAccount: the counts are of requests a stranger on the network can send too).
 */
const newBrowsersTryingOnANetwork = named(
  "unconfirmed accounts tried from never-seen browsers on one network within the hour",
  all(
    neverSeenBrowser,
    placeNewToAccount,
    any(
      all(gte("network_provisional_attempts", 5), any(gte("network_new_fingerprints", 5), gte("provider_new_fingerprints", 5))),
      all(gte("network_provisional_attempts", 2), gte("network_new_fingerprints", 3)),
    ),
  ),
);

/**
 * A browser new to this account, or naming an account the service never met, logging into its second account within
 * the hour from an address no other account came from (rotating proxies: a fresh address per account, one browser
 * profile kept across them). Someone with two accounts, or with a mistyped login first, or on a friend's computer,
 * stays on one address, where the other account is counted.
 */
const secondAccountFromAFreshAddress = named(
  "a new browser's second account within the hour, from an address no other account came from",
  all(gte("fingerprint_accounts_tried", 2), newBrowserOrAccount, lte("ip_user_count", 1)),
);

/**
 * Through a datacenter or an anonymising network, a browser that logged into an account and, within the hour, names a
 * second one the service never confirmed, the only unconfirmed one it tried: a combo list's run from one rented host,
 * its known victims and its guesses seconds apart. Someone who mistyped their login first tried an unconfirmed name
 * before their own (two), and a family's second account on the shared computer is not behind a datacenter.
 */
const knownThenNeverMetFromAHost = named(
  "through a datacenter or an anonymising network, a browser's second account within the hour, never confirmed, after one that was",
  all(datacenterOrAnonymous, gte("fingerprint_accounts_tried", 2), unconfirmedAccount, lte("fingerprint_provisional_attempts", 1)),
);

/**
 * A browser trying its second unconfirmed account within the hour from another address than its first: a combo list
 * through rotating proxies (someone retyping a mistyped login stays on one address).
 */
const secondUnconfirmedFromAnotherAddress = named(
  "a browser's second unconfirmed account within the hour, from another address",
  all(lte("ip_provisional_attempts", 1), any(gte("fingerprint_provisional_attempts", 2), gte("device_provisional_attempts", 2))),
);

/**
 * A browser new to this account, or naming an account the service never met, that was somewhere else within the day
 * it could not have left in time to be here, whatever it did there: one browser profile through a residential proxy
 * network, a country per attempt, however slowly. A laptop is carried, and a signed-in browser on its owner's account
 * is its owner (impossible_travel measures the account's own places).
 */
const browserThatCouldNotHaveTravelled = named(
  "a new browser that was, within the day, too far away to have travelled here since",
  all(eq("browser_impossible_travel", true), newBrowserOrAccount),
);

/** A browser that two or more accounts used, now trying a second account the service never confirmed. */
const sharedBrowserTryingAgain = named(
  "a browser two accounts used, trying a second unconfirmed one",
  all(gte("fingerprint_provisional_attempts", 2), gte("fingerprint_user_count", 2)),
);

/**
 * The same over the day, on a browser three or more accounts used: one browser profile naming accounts of a combo list
 * one every half hour or more (low and slow), its known victims' among them. A family computer's accounts are
 * confirmed at their logins; a mistyped login leaves one unconfirmed name, seldom two in a day.
 */
const sharedBrowserTryingAgainOverTheDay = named(
  "a browser three accounts used, trying its second unconfirmed one of the day",
  all(gte("fingerprint_provisional_attempts_day", 2), gte("fingerprint_user_count", 3)),
);

/**
 * A known account from a never-seen browser where never-seen browsers keep appearing. Not an account the service never
 * met: on its first day every login names one, and an office's network presents new browsers. Over the day too,
 * higher: a low and slow run paces itself under any hourly count. Not on a network the account already used: a
 * student whose residence's NAT signed thirty classmates up that morning logs in on a second device there.
 */
const knownAccountAmidChurn = named(
  "a known account from a never-seen browser where never-seen browsers keep appearing",
  all(
    knownAccount,
    neverSeenBrowser,
    placeNewToAccount,
    any(gte("ip_new_fingerprints", 4), gte("network_new_fingerprints", 6), gte("network_new_fingerprints_day", 8)),
  ),
);

/**
 * Any account, known or never met, from a never-seen browser through a cloud, VPN or proxy provider where never-seen
 * browsers keep appearing. A provider's pool spans many /24s, so unconfirmed accounts counted per network do not add up
 * there; and a provider is no office: its new browsers are strangers'. Not for an account already let in through the
 * provider (or from its network): a stranger among its subscribers can send never-seen browsers too.
 */
const anyAccountAmidProviderChurn = named(
  "any account from a never-seen browser through a provider where never-seen browsers keep appearing",
  all(neverSeenBrowser, placeNewToAccount, any(gte("provider_new_fingerprints", 6), gte("provider_new_fingerprints_day", 8))),
);

/**
 * Unconfirmed accounts tried from never-seen browsers on one network over the day (three, and four new browsers; or
 * two where never-seen browsers keep appearing, six): the same run, low and slow, most of whose attempts name known
 * accounts. An office's first day names accounts never met too, but each is confirmed at its login; a household's
 * mistyped login leaves one, among its three or four new browsers. Into an account never let in from there, as within
 * the hour.
 */
const newBrowsersTryingOverTheDay = named(
  "unconfirmed accounts tried from never-seen browsers on one network over the day",
  all(
    neverSeenBrowser,
    placeNewToAccount,
    any(
      all(gte("network_provisional_attempts_day", 3), gte("network_new_fingerprints_day", 4)),
      all(gte("network_provisional_attempts_day", 2), gte("network_new_fingerprints_day", 6)),
    ),
  ),
);

/**
 * An account the service never confirmed, from a never-seen browser through a cloud, VPN or proxy provider that
 * presented three never-seen browsers within the hour, or five within the day: what the sign-up farm rule counts, for
 * a login on a combo list through one provider.
 */
const unconfirmedAmidProviderChurn = named(
  "an unconfirmed account from a never-seen browser through a provider presenting never-seen browsers",
  all(neverSeenBrowser, unconfirmedAccount, any(gte("provider_new_fingerprints", 3), gte("provider_new_fingerprints_day", 5))),
);

/**
 * An account the service never confirmed, from a never-seen browser set to a time zone of no part of the country it
 * connects from, where another never-seen browser appeared within the day: on this /24, or through this datacenter
 * with a clock hours away (a company's gateway in the next country is its staff's everyday exit). Not through a VPN or
 * a proxy service, whose exit its user picks anywhere. A rig behind a residential proxy or on a cloud host keeps its
 * own zone; a traveller's laptop keeps its home zone too, but logs into an account it had before, and a privacy
 * browser's UTC is no country's zone.
 */
const rigKeepsItsZone = named(
  "a rig keeps its own zone: an unconfirmed account from a never-seen browser set to a zone of no part of the country",
  all(
    neverSeenBrowser,
    unconfirmedAccount,
    zoneOutsideCountry,
    notAnonymising,
    any(
      gte("network_new_fingerprints_day", 2),
      all(eq("ip_is_hosting", true), eq("timezone_mismatch", true), gte("provider_new_fingerprints_day", 2)),
    ),
  ),
);

/**
 * A never-seen browser logging in where, within the day, another never-seen browser of its exact build (user agent,
 * brand, platform, OS version, architecture) logged in with another audio output, or with its GPU and another canvas:
 * on its address, its /24 or through its provider. Real browsers of one build agree on both; an anti-detect browser
 * draws them anew for every profile, so a run on a combo list shows from its second attempt there, whatever zone the
 * rig is set to and whatever accounts it names. Counted only while that build's never-seen browsers are half or more
 * of the day's there (the sign-up farm rule's counts, for logins), and only for a browser whose own audio output
 * (canvas) no other never-seen browser presented with its build (GPU) within 30 days: a stranger's forged logins of a
 * common build cannot reach real browsers (docs/decisions/noisy-siblings-poisoning.md).
 */
const generatedProfilesLoggingIn = named(
  "a never-seen browser whose build logged in there today with another audio output or canvas (an anti-detect browser's profiles)",
  all(neverSeenBrowser, gte("login_noisy_siblings_day", 1)),
);

/**
 * A browser new to the account, or naming an account the service never met, whose Chromium runs on a machine's default
 * clock (UTC): a headless browser or a stuffing tool's rig on a server or in a container, from its first attempt,
 * before any count adds up. A person's computer is set to local time; the privacy browsers that report UTC are
 * Firefox's (Tor Browser, Mullvad Browser, resistFingerprinting), and a browser the owner signed in on is left alone.
 */
const serverClock = named(
  "a browser new to the account, or naming an account never met, whose Chromium runs on a server's clock (UTC)",
  all(eq("server_timezone", true), newBrowserOrAccount),
);

/**
 * A browser five or more accounts used (by its visitor token or its identifying fingerprint), logging into an account
 * it was never let in on: a combo list run from one profile. A household's shared computer or tablet holds every
 * member's account too, but each member's login there comes from a browser the backend let that member in on
 * (`is_new_device` false: only a vouched token is the account's device), which a stranger's browser never is
 * (docs/detection.md, "Account-independent login rules and fingerprint churn").
 */
const manyAccountsOnABrowserNewToThisOne = named(
  "a browser five or more accounts used, new to this account",
  all(any(gte("device_user_count", 5), gte("fingerprint_user_count", 5)), eq("is_new_device", true)),
);

export default defaultPolicy("challenge-account-cycling", {
  name: "Verify logins that cycle through accounts",
  description:
    "A login from a browser that has tried accounts the service never confirmed (three within an hour, four within a day, or a second one from another address), that logged into three accounts of any kind within an hour (through a datacenter or an anonymising network, two, the second never confirmed after one that was), or that five or more accounts used, new to the account (three, trying its second unconfirmed account of the day); from an IP or a network where many unconfirmed accounts were tried within an hour, or several from never-seen browsers within a day; from an IP ten accounts were named from within an hour (a datacenter's: denied by Deny credential stuffing); or into a known account from a never-seen browser, on a network new to the account, where never-seen browsers keep appearing, within the hour or, more of them, within the day (an anti-detect browser draws one per attempt; a slow run paces itself under hourly counts); or into any account from a never-seen browser through a cloud, VPN or proxy provider where they keep appearing (into an account never confirmed, from the third within the hour or the fifth within the day); or from a browser new to the account that was, within the day, too far away to have come here (one browser profile through a residential proxy network); or into an account never confirmed from a never-seen browser set to a time zone of no part of the country it connects from, the second never-seen browser of the day on its network, or through its datacenter with a clock hours away (a rig keeps its zone; not through a VPN); or from a Chromium browser set to UTC (a server's clock, where stuffing rigs run), new to the account or naming an account never met; or from a never-seen browser whose exact build logged in on its address, network or provider that day with another audio output or canvas (an anti-detect browser's profiles). A network's or provider's counts: only for an account never let in there. The code goes to the account's owner.",
  actions: ["login"],
  priority: 620,
  verdict: "challenge",
  challenge: emailChallenge("account_takeover"),
  conditions: any(
    gte("device_provisional_attempts", 3),
    gte("fingerprint_provisional_attempts", 3),
    // The same browser over the day, one more: a run through rotating proxies paced under the hour's count.
    gte("device_provisional_attempts_day", 4),
    gte("fingerprint_provisional_attempts_day", 4),
    manyUnconfirmedHere,
    manyAccountsHere,
    fewFromDatacenter,
    newBrowsersTryingOnANetwork,
    manyAccountsOnABrowserNewToThisOne,
    // A browser logging into account after account, known or not (a combo list's run from one profile).
    gte("fingerprint_accounts_tried", 3),
    secondAccountFromAFreshAddress,
    secondUnconfirmedFromAnotherAddress,
    knownThenNeverMetFromAHost,
    browserThatCouldNotHaveTravelled,
    sharedBrowserTryingAgain,
    sharedBrowserTryingAgainOverTheDay,
    knownAccountAmidChurn,
    anyAccountAmidProviderChurn,
    newBrowsersTryingOverTheDay,
    unconfirmedAmidProviderChurn,
    rigKeepsItsZone,
    serverClock,
    generatedProfilesLoggingIn,
  ),
});
