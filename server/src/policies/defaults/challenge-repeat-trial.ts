// Verify repeat sign-ups (docs/identity.md): a browser that already had accounts, or exactly its components at the same
// address (one that clears its storage between accounts).
import { any, defaultPolicy, emailChallenge, gte } from "./rules.js";

export default defaultPolicy("challenge-repeat-trial", {
  name: "Verify repeat sign-ups",
  description:
    "A sign-up from a browser already used by two or more other accounts (repeat trials, multi-accounting), or from a browser with exactly the same components at the same address that three or more accounts used within a week (one that clears its storage between accounts).",
  actions: ["signup"],
  priority: 500,
  verdict: "challenge",
  challenge: emailChallenge("repeat_trial"),
  conditions: any(
    gte("fingerprint_user_count", 3),
    gte("device_user_count", 3),
    // A family's phones of one model on one home network share their components: the fourth account, not the third.
    gte("fingerprint_ip_user_count", 4),
  ),
});
