// Challenge automation: verify a person, never deny on markers alone (docs/detection.md, "Bots: what the server checks
// itself": privacy browsers trip markers).
import { any, defaultPolicy, emailChallenge, eq, isIn } from "./rules.js";

export default defaultPolicy("challenge-bots", {
  name: "Challenge automation",
  description:
    "Client-side automation markers, or a high bot risk from the server's own checks (a forged user agent on a software renderer, a headless window): verify a person, never deny on them alone (privacy browsers trip markers).",
  actions: [],
  priority: 650,
  verdict: "challenge",
  challenge: emailChallenge("fake_account"),
  conditions: any(eq("client_automation", true), isIn("risk.bot.severity", ["high", "maximum"])),
});
