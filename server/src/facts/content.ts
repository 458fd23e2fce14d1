// Fact: repeated content (docs/detection.md): other users who posted the same text (its normalised hash) within the day.
import { defineFacts } from "./define.js";

/** A spam wave posts the same text within hours. */
export const CONTENT_WINDOW = 24 * 60 * 60 * 1000;

export const repeatedContent = defineFacts({
  name: "content",
  load: async ({ input, identity, signals, repos }) =>
    signals.content
      ? repos.history.contentUsers(input.env.id, signals.content.hash, input.at - CONTENT_WINDOW, identity.user?.id ?? null)
      : undefined,
});
