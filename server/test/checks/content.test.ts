// The checks of one family through the real HTTP API on both stores (harness.ts): each check set and not set.
// Content (server/src/checks/families/content.ts): links, contact details, spam, repetition across users.
import { above, describeChecks, plain } from "./harness.js";

describeChecks("content", [
  {
    check: "content_link_count",
    set: {
      why: "a text with two links",
      value: 2,
      run: (h) => h.server("post", { user: h.id("u"), content: { text: "See https://example.com/a and www.example.net for more" } }),
    },
    unset: { why: "a text without links", value: 0, run: (h) => h.server("post", { user: h.id("u"), content: { text: plain(h) } }) },
  },
  {
    check: "content_has_contact_info",
    set: [
      {
        why: "a phone number",
        value: true,
        run: (h) => h.server("post", { user: h.id("u"), content: { text: "Call me on +1 415 555 0199 tonight" } }),
      },
      {
        why: "an email address",
        value: true,
        run: (h) => h.server("post", { user: h.id("u"), content: { text: "write to deals@example.com" } }),
      },
    ],
    unset: { why: "an ordinary comment", value: false, run: (h) => h.server("post", { user: h.id("u"), content: { text: plain(h) } }) },
  },
  {
    check: "content_repetition_count",
    set: {
      why: "a text two other users posted today",
      value: 2,
      run: async (h) => {
        const text = plain(h);
        await h.server("post", { user: h.id("u"), content: { text } });
        await h.server("post", { user: h.id("u"), content: { text } });
        return h.server("post", { user: h.id("u"), content: { text } });
      },
    },
    unset: {
      why: "the same user posting their text again",
      value: 0,
      run: async (h) => {
        const [user, text] = [h.id("u"), plain(h)];
        await h.server("post", { user, content: { text } });
        return h.server("post", { user, content: { text } });
      },
    },
  },
  {
    check: "content_spam_score",
    set: {
      why: "commercial spam vocabulary",
      value: above(0),
      run: (h) => h.server("post", { user: h.id("u"), content: { text: "Buy now at the best price, limited offer" } }),
    },
    unset: { why: "an ordinary comment", value: 0, run: (h) => h.server("post", { user: h.id("u"), content: { text: plain(h) } }) },
  },
]);
