// Hold suspicious content: the content_abuse risk at medium, published after review.
import { defaultPolicy, eq } from "./rules.js";

export default defaultPolicy("restrict-suspicious-content", {
  name: "Hold suspicious content",
  description: "Content with a medium spam or abuse score: publish after review.",
  actions: [],
  priority: 350,
  verdict: "restrict",
  conditions: eq("risk.content_abuse.severity", "medium"),
});
