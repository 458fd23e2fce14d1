// Deny credential stuffing: one IP logging into many accounts from where no office is (docs/detection.md).
import { neverSeenBrowser, placeNewToAccount } from "./conditions.js";
import { all, any, defaultPolicy, eq, gte, named } from "./rules.js";

export default defaultPolicy("deny-credential-stuffing", {
  name: "Deny credential stuffing",
  description:
    "Logins for ten or more accounts from one IP within an hour, from a datacenter, an anonymising network or unfamiliar browsers (an office behind one NAT is none of these), into an account never let in from that network or provider (anyone there can send logins naming accounts).",
  actions: ["login"],
  priority: 850,
  verdict: "deny",
  conditions: all(
    gte("ip_user_count", 10),
    // A stranger behind the same NAT or VPN exit can name ten accounts: not for an account at home there.
    placeNewToAccount,
    // An office behind one NAT is none of these.
    named(
      "a datacenter, an anonymising network or unfamiliar browsers",
      any(eq("ip_is_hosting", true), eq("ip_is_anonymous", true), neverSeenBrowser),
    ),
  ),
});
