// Verify repeat sign-ups (docs/identity.md, docs/detection.md "Sign-up farms"): a browser that already had accounts, or
// exactly its components at the same address or across its networks within the day (one that clears its storage
// between accounts).
import { all, any, defaultPolicy, emailChallenge, gte, lte, named } from "./rules.js";

/**
 * A browser's third account when its storage was cleared between them: fewer of them on this visitor token than on
 * the browser's identifying fingerprint.
 */
const storageClearedBetween = named(
  "a browser's third account, its storage cleared between them",
  all(gte("fingerprint_user_count", 3), lte("device_user_count", 2)),
);

/**
 * One computer clearing its storage between accounts and alternating its networks (its home line, its phone's
 * connection): its identifying fingerprint's third sign-up of the day, one of them from another network. Counting
 * only: the fingerprint makes no login familiar. A phone model's fingerprint is every owner's: not counted.
 */
const deviceAcrossNetworks = named(
  "one device's third sign-up of the day, across its networks",
  all(gte("fingerprint_signups_day", 3), gte("fingerprint_signups_elsewhere_day", 1)),
);

/**
 * Exactly these components at one address, the fourth account: on a browser they identify (a computer clearing its
 * storage), or on a phone model's that kept one visitor token for two of the day's accounts there (one phone clearing
 * its storage now and then). A phone shop sets up each customer's new phone of one model on its own token.
 */
const sameBrowserHere = named(
  "one browser's exact components at one address, the fourth account",
  all(gte("fingerprint_ip_user_count", 4), any(gte("fingerprint_signups_day", 1), gte("fingerprint_ip_reused_tokens_day", 1))),
);

export default defaultPolicy("challenge-repeat-trial", {
  name: "Verify repeat sign-ups",
  description:
    "A sign-up from a browser already used by three or more other accounts, or by two when its storage was cleared between them (repeat trials, multi-accounting; a family's shared computer keeps its token); from a browser with exactly the same components at the same address that three or more accounts used within a week (one that clears its storage between accounts), when those components identify a computer or when a visitor token there signed up two of the day's accounts (a phone shop sets up each new phone of one model on its own token); or from a computer whose components signed up twice already that day, once at least from another network (storage cleared, home line and phone's connection alternating).",
  actions: ["signup"],
  priority: 500,
  verdict: "challenge",
  challenge: emailChallenge("repeat_trial"),
  conditions: any(
    // A family's shared computer, its token kept, holds the accounts of the members who have no device of their own:
    // the fourth on one token, not the third. The third when the browser's storage was cleared between them.
    gte("fingerprint_user_count", 4),
    gte("device_user_count", 4),
    storageClearedBetween,
    // A family's browsers of one model on one home network share their components: the fourth account, not the third.
    sameBrowserHere,
    deviceAcrossNetworks,
  ),
});
