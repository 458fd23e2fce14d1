// Verify sign-ups and logins over Tor (docs/detection.md, "Networks").
import { defaultPolicy, emailChallenge, eq } from "./rules.js";

export default defaultPolicy("challenge-tor", {
  name: "Verify sign-ups and logins over Tor",
  description: "A sign-up or login from a Tor exit: whoever it is cannot be told from an attacker by network or place.",
  actions: ["signup", "login"],
  priority: 610,
  verdict: "challenge",
  challenge: emailChallenge("account_takeover"),
  conditions: eq("ip_is_tor", true),
});
