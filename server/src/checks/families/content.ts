// Checks of the content a request submits (signals/content.ts): links, contact details, spam vocabulary, and the same
// text from other users within the day (facts/content.ts).
import { repeatedContent } from "../../facts/content.js";
import { defineCheck } from "../define.js";

export const checks = [
  defineCheck({
    name: "content_link_count",
    type: "number",
    doc: "Links in the content (0 without content).",
    reason: "links",
    compute: (c) => c.signals.content?.linkCount ?? 0,
  }),
  defineCheck({
    name: "content_has_contact_info",
    type: "boolean",
    doc: "The content holds an email address, a phone number or a messaging handle.",
    reason: "contact_info",
    compute: (c) => c.signals.content?.hasContactInfo ?? false,
  }),
  defineCheck({
    name: "content_repetition_count",
    type: "number",
    doc: "Other users who posted the same text in the last day (the current one not counted).",
    reason: "repeated_content",
    needs: [repeatedContent],
    compute: (c) => c.facts.content?.users ?? 0,
  }),
  defineCheck({
    name: "content_spam_score",
    type: "number",
    doc: "The content's spam score, 0 to 100 (spam vocabulary and patterns).",
    reason: "spam_patterns",
    compute: (c) => c.signals.content?.spamScore ?? 0,
  }),
] as const;
