// Deny multi-accounting: a browser that has become an account factory (docs/identity.md).
import { any, defaultPolicy, gte } from "./rules.js";

export default defaultPolicy("deny-multi-accounting", {
  name: "Deny multi-accounting",
  description: "A sign-up from a browser already used by five or more accounts.",
  actions: ["signup"],
  priority: 750,
  verdict: "deny",
  conditions: any(gte("fingerprint_user_count", 6), gte("device_user_count", 6)),
});
