// Cap devices per account (docs/detection.md, "Account sharing"). Its rule depends on the project's device limit: the
// description says it, and the challenge carries it (devices_over_limit reads the limit of the policy that applies, so
// editing the policy's limit is enough).
import { all, any, defaultPolicy, emailChallenge, eq, gt, gte, named } from "./rules.js";

const newDevice = eq("is_new_device", true);

export default defaultPolicy("challenge-account-sharing", ({ deviceLimit }) => ({
  name: "Cap devices per account",
  description: `More than ${deviceLimit} devices in use on one account while another of its devices is in use elsewhere, two or more beyond ${deviceLimit}, or a new device in use too far from another of its devices, or from its last trusted place, for one person: the owner verifies and removes the extra devices.`,
  actions: ["access"],
  priority: 550,
  verdict: "challenge",
  challenge: emailChallenge("account_sharing", { device_limit: deviceLimit }),
  // One device over the limit is an owner's fourth browser as often as a sharer's (a tablet, a work computer, a browser
  // that lost its storage within the hour): it takes devices in use at once on other networks too.
  conditions: any(
    gte("devices_over_limit", 2),
    named("over the limit, with another device in use elsewhere", all(gt("devices_over_limit", 0), gt("concurrent_sessions", 0))),
    named("a new device too far from another one in use", all(eq("session_impossible_travel", true), newDevice)),
    // In use from a new address where the account's last trusted place could not have been left in time.
    named(
      "a new device at a new address the account's last trusted place is too far from",
      all(eq("impossible_travel", true), newDevice, eq("is_new_ip", true)),
    ),
  ),
}));
