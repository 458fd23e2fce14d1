// Deny credential stuffing: one IP logging into many accounts from a rented host (docs/detection.md).
import { manyAccountsOnOneAddress } from "./conditions.js";
import { all, defaultPolicy, eq } from "./rules.js";

export default defaultPolicy("deny-credential-stuffing", {
  name: "Deny credential stuffing",
  description:
    "Logins for ten or more accounts from one IP within an hour, from a datacenter, into an account never let in from that network or provider. Elsewhere (a NAT, a carrier, a VPN, a proxy network or Tor: addresses strangers share with honest people, where anyone can name accounts) the same count challenges instead, the code going to the account's owner (Verify logins that cycle through accounts).",
  actions: ["login"],
  priority: 850,
  verdict: "deny",
  conditions: all(
    manyAccountsOnOneAddress,
    // A rented host: no crowd shares its address with strangers, so the accounts named there are its tenant's. A VPN's
    // or a proxy network's exit, a campus's or a carrier's NAT are shared: a stranger there could deny anyone a login
    // with no code to pass (docs/decisions/stuffing-deny-on-rented-hosts.md).
    eq("ip_is_hosting", true),
  ),
});
