// Restrict throwaway sign-ups: let in with limited rights (from a datacenter, deny-fake-accounts denies them first).
import { throwawayEmail } from "./conditions.js";
import { defaultPolicy } from "./rules.js";

export default defaultPolicy("restrict-disposable-email", {
  name: "Restrict throwaway sign-ups",
  description: "A sign-up with a disposable email from an ordinary network: let in with limited rights.",
  actions: ["signup"],
  priority: 400,
  verdict: "restrict",
  conditions: throwawayEmail,
});
