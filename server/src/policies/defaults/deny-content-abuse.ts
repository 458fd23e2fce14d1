// Deny abusive content: the content_abuse risk at high or maximum (docs/detection.md, "Risks and their identifiers").
import { defaultPolicy, isIn } from "./rules.js";

export default defaultPolicy("deny-content-abuse", {
  name: "Deny abusive content",
  description: "Content scored high for spam or abuse, or the same text posted by many users.",
  actions: [],
  priority: 700,
  verdict: "deny",
  conditions: isIn("risk.content_abuse.severity", ["high", "maximum"]),
});
