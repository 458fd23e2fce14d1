// Deny fake accounts: a throwaway address from where no person signs up (docs/detection.md).
import { datacenterOrAnonymous, throwawayEmail } from "./conditions.js";
import { all, defaultPolicy } from "./rules.js";

export default defaultPolicy("deny-fake-accounts", {
  name: "Deny fake accounts",
  description: "Sign-ups with a disposable or invalid email from a datacenter or anonymising network.",
  actions: ["signup"],
  priority: 800,
  verdict: "deny",
  conditions: all(throwawayEmail, datacenterOrAnonymous),
});
