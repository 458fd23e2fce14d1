// Deny bots: automation the server's own evidence confirms (docs/detection.md, "Bots: what the server checks itself").
import { all, any, defaultPolicy, eq, named } from "./rules.js";

/** What the browser gives away about itself, or what its own behaviour contradicts. */
const automatedOrForged = named(
  "client markers, or a forged browser (a user agent its own client hints and platform contradict, a headless window)",
  any(eq("client_automation", true), eq("user_agent_mismatch", true), eq("headless_window", true)),
);

const noPersonsNetworkOrPace = named("a datacenter IP or inhuman velocity", any(eq("ip_is_hosting", true), eq("has_high_velocity", true)));

export default defaultPolicy("deny-bots", {
  name: "Deny bots",
  description:
    "Automation confirmed by server-side evidence: a bot user agent, or client markers or a forged browser (a user agent its own client hints and platform contradict, a headless window) with a datacenter IP or inhuman velocity.",
  actions: [],
  priority: 900,
  verdict: "deny",
  conditions: any(eq("bot_user_agent", true), all(automatedOrForged, noPersonsNetworkOrPace)),
});
