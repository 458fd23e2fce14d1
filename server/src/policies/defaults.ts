// The policies every new environment starts with (SPEC.md 6). Priorities: denials above challenges above
// restrictions, so the strongest matching verdict wins. Thresholds favour honest users (a false positive costs
// more than a miss): two accounts on one family computer, a new phone at home or a trip abroad are not challenged.
import type { PolicyInput } from "../store/policies.js";

export const DEFAULT_DEVICE_LIMIT = 3;

export function defaultPolicies(deviceLimit = DEFAULT_DEVICE_LIMIT): { key: string; policy: PolicyInput }[] {
  const p = (key: string, policy: Omit<PolicyInput, "enabled"> & { enabled?: boolean }) => ({ key, policy: { enabled: true, ...policy } });
  return [
    p("deny-bots", {
      name: "Deny bots",
      description:
        "Automation confirmed by server-side evidence: a bot user agent, or client markers or a forged browser (a user agent its own client hints and platform contradict, a headless window) with a datacenter IP or inhuman velocity.",
      actions: [],
      priority: 900,
      verdict: "deny",
      conditions: {
        any: [
          { check: "bot_user_agent", op: "eq", value: true },
          {
            all: [
              {
                any: [
                  { check: "client_automation", op: "eq", value: true },
                  { check: "user_agent_mismatch", op: "eq", value: true },
                  { check: "headless_window", op: "eq", value: true },
                ],
              },
              {
                any: [
                  { check: "ip_is_hosting", op: "eq", value: true },
                  { check: "has_high_velocity", op: "eq", value: true },
                ],
              },
            ],
          },
        ],
      },
    }),
    p("deny-credential-stuffing", {
      name: "Deny credential stuffing",
      description:
        "Logins for ten or more accounts from one IP within an hour, from a datacenter, an anonymising network or unfamiliar browsers (an office behind one NAT is none of these).",
      actions: ["login"],
      priority: 850,
      verdict: "deny",
      conditions: {
        all: [
          { check: "ip_user_count", op: "gte", value: 10 },
          {
            any: [
              { check: "ip_is_hosting", op: "eq", value: true },
              { check: "ip_is_anonymous", op: "eq", value: true },
              { check: "is_new_fingerprint", op: "eq", value: true },
            ],
          },
        ],
      },
    }),
    p("challenge-account-cycling", {
      name: "Verify logins that cycle through accounts",
      description:
        "A login from a browser that has tried accounts the service never confirmed (three within an hour, four within a day, or a second one from another address), that logged into three accounts of any kind within an hour, or that five or more accounts used; from an IP or a network where many unconfirmed accounts were tried within an hour, or several from never-seen browsers within a day; or into a known account from a never-seen browser where never-seen browsers keep appearing, within the hour or, more of them, within the day (an anti-detect browser draws a new one per attempt, and a low and slow run paces itself under hourly counts); or into any account from a never-seen browser through a cloud, VPN or proxy provider where they keep appearing (into an account never confirmed, from the third within the hour or the fifth within the day); or from a browser new to the account that was, within the day, too far away to have travelled here since (one browser profile through a residential proxy network); or into an account never confirmed from a never-seen browser set to a time zone of no part of the country it connects from, the second never-seen browser of the day on its network, or through its datacenter with a clock hours away (a rig keeps its own zone; not through a VPN, whose exit its user picks anywhere). Whatever the account: the code goes to its owner.",
      actions: ["login"],
      priority: 620,
      verdict: "challenge",
      challenge: { type: "account_takeover", channels: ["email"], require: "any", allow_skip: false, skip_limit: 3 },
      conditions: {
        any: [
          { check: "device_provisional_attempts", op: "gte", value: 3 },
          { check: "fingerprint_provisional_attempts", op: "gte", value: 3 },
          // The same browser over the day, one more: a run through rotating proxies paced under the hour's count.
          { check: "device_provisional_attempts_day", op: "gte", value: 4 },
          { check: "fingerprint_provisional_attempts_day", op: "gte", value: 4 },
          { check: "ip_provisional_attempts", op: "gte", value: 10 },
          { check: "network_provisional_attempts", op: "gte", value: 20 },
          // From a datacenter or an anonymising network, a few unconfirmed accounts are enough.
          {
            all: [
              { check: "ip_provisional_attempts", op: "gte", value: 3 },
              {
                any: [
                  { check: "ip_is_hosting", op: "eq", value: true },
                  { check: "ip_is_anonymous", op: "eq", value: true },
                ],
              },
            ],
          },
          // Unconfirmed accounts tried from never-seen browsers, several of each on one network within the hour.
          {
            all: [
              { check: "is_new_fingerprint", op: "eq", value: true },
              {
                any: [
                  {
                    all: [
                      { check: "network_provisional_attempts", op: "gte", value: 5 },
                      {
                        any: [
                          { check: "network_new_fingerprints", op: "gte", value: 5 },
                          { check: "provider_new_fingerprints", op: "gte", value: 5 },
                        ],
                      },
                    ],
                  },
                  {
                    all: [
                      { check: "network_provisional_attempts", op: "gte", value: 2 },
                      { check: "network_new_fingerprints", op: "gte", value: 3 },
                    ],
                  },
                ],
              },
            ],
          },
          { check: "device_user_count", op: "gte", value: 5 },
          { check: "fingerprint_user_count", op: "gte", value: 5 },
          // A browser logging into account after account, known or not (a combo list's run from one profile).
          { check: "fingerprint_accounts_tried", op: "gte", value: 3 },
          // A browser new to this account, or naming an account the service never met, logging into its second
          // account within the hour from an address no other account came from (rotating proxies: a fresh address per
          // account, one browser profile kept across them). Someone with two accounts, or with a mistyped login first,
          // or on a friend's computer, stays on one address, where the other account is counted.
          {
            all: [
              { check: "fingerprint_accounts_tried", op: "gte", value: 2 },
              {
                any: [
                  { check: "is_new_fingerprint", op: "eq", value: true },
                  { check: "is_new_user", op: "eq", value: true },
                ],
              },
              { check: "ip_user_count", op: "lte", value: 1 },
            ],
          },
          // A browser trying its second unconfirmed account within the hour from another address than its first: a
          // combo list through rotating proxies (someone retyping a mistyped login stays on one address).
          {
            all: [
              { check: "ip_provisional_attempts", op: "lte", value: 1 },
              {
                any: [
                  { check: "fingerprint_provisional_attempts", op: "gte", value: 2 },
                  { check: "device_provisional_attempts", op: "gte", value: 2 },
                ],
              },
            ],
          },
          // A browser new to this account, or naming an account the service never met, that was somewhere else within
          // the day it could not have left in time to be here, whatever it did there: one browser profile through a
          // residential proxy network, a country per attempt, however slowly. A laptop is carried, and a signed-in
          // browser on its owner's account is its owner (impossible_travel measures the account's own places).
          {
            all: [
              { check: "browser_impossible_travel", op: "eq", value: true },
              {
                any: [
                  { check: "is_new_fingerprint", op: "eq", value: true },
                  { check: "is_new_user", op: "eq", value: true },
                ],
              },
            ],
          },
          // A browser that two or more accounts used, now trying a second account the service never confirmed.
          {
            all: [
              { check: "fingerprint_provisional_attempts", op: "gte", value: 2 },
              { check: "fingerprint_user_count", op: "gte", value: 2 },
            ],
          },
          // A known account from a never-seen browser where never-seen browsers keep appearing. Not an account the
          // service never met: on its first day every login names one, and an office's network presents new browsers.
          // Over the day too, higher: a low and slow run paces itself under any hourly count.
          {
            all: [
              { check: "is_new_user", op: "eq", value: false },
              { check: "is_new_fingerprint", op: "eq", value: true },
              {
                any: [
                  { check: "ip_new_fingerprints", op: "gte", value: 4 },
                  { check: "network_new_fingerprints", op: "gte", value: 6 },
                  { check: "network_new_fingerprints_day", op: "gte", value: 8 },
                ],
              },
            ],
          },
          // Any account, known or never met, from a never-seen browser through a cloud, VPN or proxy provider where
          // never-seen browsers keep appearing. A provider's pool spans many /24s, so unconfirmed accounts counted per
          // network do not add up there; and a provider is no office: its new browsers are strangers'.
          {
            all: [
              { check: "is_new_fingerprint", op: "eq", value: true },
              {
                any: [
                  { check: "provider_new_fingerprints", op: "gte", value: 6 },
                  { check: "provider_new_fingerprints_day", op: "gte", value: 8 },
                ],
              },
            ],
          },
          // Unconfirmed accounts tried from never-seen browsers on one network over the day (three, and four new
          // browsers; or two where never-seen browsers keep appearing, six): the same run, low and slow, most of whose
          // attempts name known accounts. An office's first day names accounts never met too, but each is confirmed
          // at its login; a household's mistyped login leaves one, among its three or four new browsers.
          {
            all: [
              { check: "is_new_fingerprint", op: "eq", value: true },
              {
                any: [
                  {
                    all: [
                      { check: "network_provisional_attempts_day", op: "gte", value: 3 },
                      { check: "network_new_fingerprints_day", op: "gte", value: 4 },
                    ],
                  },
                  {
                    all: [
                      { check: "network_provisional_attempts_day", op: "gte", value: 2 },
                      { check: "network_new_fingerprints_day", op: "gte", value: 6 },
                    ],
                  },
                ],
              },
            ],
          },
          // An account the service never confirmed, from a never-seen browser through a cloud, VPN or proxy provider
          // that presented three never-seen browsers within the hour, or five within the day: what the sign-up farm
          // rule counts, for a login on a combo list through one provider.
          {
            all: [
              { check: "is_new_fingerprint", op: "eq", value: true },
              { check: "is_provisional_user", op: "eq", value: true },
              {
                any: [
                  { check: "provider_new_fingerprints", op: "gte", value: 3 },
                  { check: "provider_new_fingerprints_day", op: "gte", value: 5 },
                ],
              },
            ],
          },
          // An account the service never confirmed, from a never-seen browser set to a time zone of no part of the
          // country it connects from, where another never-seen browser appeared within the day: on this /24, or through
          // this datacenter with a clock hours away (a company's gateway in the next country is its staff's everyday
          // exit). Not through a VPN or a proxy service, whose exit its user picks anywhere. A rig behind a residential
          // proxy or on a cloud host keeps its own zone; a traveller's laptop keeps its home zone too, but logs into an
          // account it had before, and a privacy browser's UTC is no country's zone.
          {
            all: [
              { check: "is_new_fingerprint", op: "eq", value: true },
              { check: "is_provisional_user", op: "eq", value: true },
              { check: "timezone_in_ip_country", op: "eq", value: false },
              { check: "ip_is_anonymous", op: "eq", value: false },
              {
                any: [
                  { check: "network_new_fingerprints_day", op: "gte", value: 2 },
                  {
                    all: [
                      { check: "ip_is_hosting", op: "eq", value: true },
                      { check: "timezone_mismatch", op: "eq", value: true },
                      { check: "provider_new_fingerprints_day", op: "gte", value: 2 },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    }),
    p("challenge-fingerprint-churn", {
      name: "Verify sign-ups from browser farms",
      description:
        "A sign-up from a never-seen browser through a cloud, VPN or proxy provider that presented three or more never-seen browsers within an hour, or five or more within a day (an anti-detect browser draws a new canvas, GPU, audio and fonts per attempt); or through a datacenter that presented another within the day, to a browser set to a time zone of no part of the datacenter's country (a farm's rig keeps its own zone), with a clock hours away or a webmail address (a company's gateway in the next country signs its staff up with work addresses).",
      actions: ["signup"],
      priority: 520,
      verdict: "challenge",
      challenge: { type: "fake_account", channels: ["email"], require: "any", allow_skip: false, skip_limit: 3 },
      // On a cloud, VPN or proxy provider only: an office or a campus behind one address sees new browsers too.
      conditions: {
        all: [
          { check: "is_new_fingerprint", op: "eq", value: true },
          {
            any: [
              { check: "provider_new_fingerprints", op: "gte", value: 3 },
              // A farm paced under the hourly count (low and slow).
              { check: "provider_new_fingerprints_day", op: "gte", value: 5 },
              // A datacenter (not a VPN, whose exit its user picks anywhere) that presented another never-seen browser
              // within the day, to a browser set to a time zone of no part of the datacenter's country: a farm's rig
              // keeps its own zone from one sign-up to the next. Unless the clock is near and the address a work one:
              // staff behind their company's gateway in the next country sign up with the company's email.
              {
                all: [
                  { check: "ip_is_hosting", op: "eq", value: true },
                  { check: "ip_is_anonymous", op: "eq", value: false },
                  { check: "timezone_in_ip_country", op: "eq", value: false },
                  { check: "provider_new_fingerprints_day", op: "gte", value: 2 },
                  {
                    any: [
                      { check: "timezone_mismatch", op: "eq", value: true },
                      { check: "email_is_webmail", op: "eq", value: true },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    }),
    p("challenge-tor", {
      name: "Verify sign-ups and logins over Tor",
      description: "A sign-up or login from a Tor exit: whoever it is cannot be told from an attacker by network or place.",
      actions: ["signup", "login"],
      priority: 610,
      verdict: "challenge",
      challenge: { type: "account_takeover", channels: ["email"], require: "any", allow_skip: false, skip_limit: 3 },
      conditions: { check: "ip_is_tor", op: "eq", value: true },
    }),
    p("deny-fake-accounts", {
      name: "Deny fake accounts",
      description: "Sign-ups with a disposable or invalid email from a datacenter or anonymising network.",
      actions: ["signup"],
      priority: 800,
      verdict: "deny",
      conditions: {
        all: [
          {
            any: [
              { check: "email_is_disposable", op: "eq", value: true },
              { check: "email_is_invalid", op: "eq", value: true },
            ],
          },
          {
            any: [
              { check: "ip_is_hosting", op: "eq", value: true },
              { check: "ip_is_anonymous", op: "eq", value: true },
            ],
          },
        ],
      },
    }),
    p("deny-multi-accounting", {
      name: "Deny multi-accounting",
      description: "A sign-up from a browser already used by five or more accounts.",
      actions: ["signup"],
      priority: 750,
      verdict: "deny",
      conditions: {
        any: [
          { check: "fingerprint_user_count", op: "gte", value: 6 },
          { check: "device_user_count", op: "gte", value: 6 },
        ],
      },
    }),
    p("deny-content-abuse", {
      name: "Deny abusive content",
      description: "Content scored high for spam or abuse, or the same text posted by many users.",
      actions: [],
      priority: 700,
      verdict: "deny",
      conditions: { check: "risk.content_abuse.severity", op: "in", value: ["high", "maximum"] },
    }),
    p("challenge-bots", {
      name: "Challenge automation",
      description:
        "Client-side automation markers, or a high bot risk from the server's own checks (a forged user agent on a software renderer, a headless window): verify a person, never deny on them alone (privacy browsers trip markers).",
      actions: [],
      priority: 650,
      verdict: "challenge",
      challenge: { type: "fake_account", channels: ["email"], require: "any", allow_skip: false, skip_limit: 3 },
      conditions: {
        any: [
          { check: "client_automation", op: "eq", value: true },
          { check: "risk.bot.severity", op: "in", value: ["high", "maximum"] },
        ],
      },
    }),
    p("challenge-ato", {
      name: "Verify unfamiliar logins",
      description:
        "A known account logging in from a new browser on a new network in another country than those it was let in from (unless set to a time zone of that country it was let in with, or a phone or tablet set to a zone of that country and to a language it was let in with), or in its country with a clock hours away set to a time zone it was never let in with (near its places a named zone, not UTC), or, never let in from a place, set to a time zone it was never let in with, or a datacenter, from a new address after impossible travel, or from a new browser through an anonymising network set to a time zone the account was never let in with (networks, countries, zones and places from the account's trusted history), or claiming an email or phone other than the account's (the code goes to the stored one).",
      actions: ["login"],
      priority: 600,
      verdict: "challenge",
      challenge: { type: "account_takeover", channels: ["email"], require: "any", allow_skip: false, skip_limit: 3 },
      conditions: {
        all: [
          { check: "is_new_user", op: "eq", value: false },
          {
            any: [
              // A new browser on a new network (not its /24, nor its carrier's or ISP's ASN) and somewhere the account
              // was never let in from: another country, or a datacenter. A second phone at home, a laptop's first
              // login at the office and a phone hopping across its carrier are none of these.
              {
                all: [
                  { check: "is_new_fingerprint", op: "eq", value: true },
                  { check: "is_new_ip", op: "eq", value: true },
                  { check: "is_new_network", op: "eq", value: true },
                  {
                    any: [
                      // Another country, unless the browser is set to a zone of this country and either that zone
                      // is one the account was let in with before (the owner's phone, which took the zone on arriving,
                      // let in while roaming on its home carrier or the day before, and whose storage was cleared
                      // since) or, on a phone or tablet, its language is (the owner's new phone abroad: it takes the
                      // local zone from the network and keeps its owner's language). A stranger's browser keeps the
                      // stranger's language, an anti-detect browser takes the proxy country's with its zone (and is
                      // a computer, as the rigs of stuffing tools are), and a browser set to the victim's home zone is
                      // not in this country.
                      {
                        all: [
                          { check: "is_new_country", op: "eq", value: true },
                          {
                            any: [
                              { check: "timezone_in_ip_country", op: "ne", value: true },
                              {
                                all: [
                                  { check: "is_new_timezone", op: "ne", value: false },
                                  {
                                    any: [
                                      { check: "is_new_language", op: "ne", value: false },
                                      { check: "device_type", op: "not_in", value: ["mobile", "tablet"] },
                                    ],
                                  },
                                ],
                              },
                            ],
                          },
                        ],
                      },
                      // An account never let in from a place (only through VPNs, proxies or datacenters): an
                      // ordinary network anywhere with a zone the account was never let in with. The owner's own
                      // phone at home is set to the zone of the computer that came through the VPN.
                      {
                        all: [
                          { check: "is_new_country", op: "exists", value: false },
                          { check: "is_new_timezone", op: "eq", value: true },
                          { check: "ip_is_anonymous", op: "eq", value: false },
                          { check: "ip_is_hosting", op: "eq", value: false },
                        ],
                      },
                      // The account's country, far from every place it was let in from (beyond the geolocations'
                      // accuracy), with a browser whose clock is hours away from here and set to a zone the account
                      // was never let in with: a stranger's computer behind a residential proxy in the victim's
                      // country. The owner's new browser at the office or at a friend's is near home, a laptop away
                      // keeps the account's zone, and a phone on a trip takes the zone of the network it is on.
                      {
                        all: [
                          { check: "distance_from_trusted_km", op: "gte", value: 500 },
                          { check: "timezone_mismatch", op: "eq", value: true },
                          { check: "is_new_timezone", op: "ne", value: false },
                        ],
                      },
                      // The account's country, however near its places, with a browser whose clock is hours away from
                      // here and set to a zone the account was never let in with (a named zone, not UTC): a stranger on
                      // a residential proxy chosen in the victim's own city. The owner's new browser near home is set
                      // to the zone of the place, or to the account's.
                      {
                        all: [
                          // A trusted place in this country (null: none, or an address that places no one).
                          { check: "distance_from_trusted_km", op: "exists", value: true },
                          { check: "timezone_mismatch", op: "eq", value: true },
                          { check: "is_new_timezone", op: "eq", value: true },
                        ],
                      },
                      // A datacenter, unless the account came through this provider before or the browser is set
                      // to a time zone the account was let in with (a company's gateway from the laptop at home).
                      {
                        all: [
                          { check: "ip_is_hosting", op: "eq", value: true },
                          { check: "is_new_provider", op: "eq", value: true },
                          { check: "is_new_timezone", op: "ne", value: false },
                        ],
                      },
                    ],
                  },
                ],
              },
              {
                all: [
                  { check: "impossible_travel", op: "eq", value: true },
                  { check: "is_new_ip", op: "eq", value: true },
                ],
              },
              { check: "contact_mismatch", op: "eq", value: true },
              // An anonymising network from a new browser (a known browser on another exit of its VPN is its owner),
              // unless the account came in through this VPN or proxy provider before, or the browser is set to a time
              // zone the account was let in with (a VPN moves the exit, not the computer's zone); Tor always.
              {
                all: [
                  { check: "ip_is_anonymous", op: "eq", value: true },
                  { check: "is_new_fingerprint", op: "eq", value: true },
                  {
                    any: [
                      {
                        all: [
                          { check: "is_new_provider", op: "ne", value: false },
                          { check: "is_new_timezone", op: "ne", value: false },
                        ],
                      },
                      { check: "ip_is_tor", op: "eq", value: true },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    }),
    p("challenge-account-sharing", {
      name: "Cap devices per account",
      description: `More than ${deviceLimit} devices in use on one account while another of its devices is in use elsewhere, two or more beyond ${deviceLimit}, or a new device in use too far from another of its devices, or from its last trusted place, for one person: the owner verifies and removes the extra devices.`,
      actions: ["access"],
      priority: 550,
      verdict: "challenge",
      challenge: {
        type: "account_sharing",
        channels: ["email"],
        require: "any",
        allow_skip: false,
        skip_limit: 3,
        device_limit: deviceLimit,
      },
      // devices_over_limit reads this policy's own device_limit: editing the limit is enough.
      // One device over the limit is an owner's fourth browser as often as a sharer's (a tablet, a work computer, a
      // browser that lost its storage within the hour): it takes devices in use at once on other networks too.
      conditions: {
        any: [
          { check: "devices_over_limit", op: "gte", value: 2 },
          {
            all: [
              { check: "devices_over_limit", op: "gt", value: 0 },
              { check: "concurrent_sessions", op: "gt", value: 0 },
            ],
          },
          {
            all: [
              { check: "session_impossible_travel", op: "eq", value: true },
              { check: "is_new_device", op: "eq", value: true },
            ],
          },
          // In use from a new address where the account's last trusted place could not have been left in time.
          {
            all: [
              { check: "impossible_travel", op: "eq", value: true },
              { check: "is_new_device", op: "eq", value: true },
              { check: "is_new_ip", op: "eq", value: true },
            ],
          },
        ],
      },
    }),
    p("challenge-repeat-trial", {
      name: "Verify repeat sign-ups",
      description:
        "A sign-up from a browser already used by two or more other accounts (repeat trials, multi-accounting), or from a browser with exactly the same components at the same address that three or more accounts used within a week (one that clears its storage between accounts).",
      actions: ["signup"],
      priority: 500,
      verdict: "challenge",
      challenge: { type: "repeat_trial", channels: ["email"], require: "any", allow_skip: false, skip_limit: 3 },
      conditions: {
        any: [
          { check: "fingerprint_user_count", op: "gte", value: 3 },
          { check: "device_user_count", op: "gte", value: 3 },
          // A family's phones of one model on one home network share their components: the fourth account, not the third.
          { check: "fingerprint_ip_user_count", op: "gte", value: 4 },
        ],
      },
    }),
    p("restrict-disposable-email", {
      name: "Restrict throwaway sign-ups",
      description: "A sign-up with a disposable email from an ordinary network: let in with limited rights.",
      actions: ["signup"],
      priority: 400,
      verdict: "restrict",
      conditions: {
        any: [
          { check: "email_is_disposable", op: "eq", value: true },
          { check: "email_is_invalid", op: "eq", value: true },
        ],
      },
    }),
    p("restrict-suspicious-content", {
      name: "Hold suspicious content",
      description: "Content with a medium spam or abuse score: publish after review.",
      actions: [],
      priority: 350,
      verdict: "restrict",
      conditions: { check: "risk.content_abuse.severity", op: "eq", value: "medium" },
    }),
  ];
}
