// Content scoring does linear work over at most MAX_CONTENT_CHARS characters (docs/security.md), whatever the input: the
// work is counted (characters visited by the scans, characters handed to regular expressions), not timed.
import { describe, expect, it } from "vitest";
import { adversarialTexts } from "./adversarial-content.js";
import { analyseContent, type ContentWork, MAX_CONTENT_CHARS } from "./content.js";

/** Characters each scan may visit per character of text (links: 2 with the punctuation trim, emails: 2, phones, letters). */
const STEPS_PER_CHAR = 8;
/** Expressions run over the text: the handle list, five spam lists, and the two replacements of normaliseText. */
const REGEX_RUNS = 8;

function workOf(text: string): { work: ContentWork; result: ReturnType<typeof analyseContent> } {
  const work: ContentWork = { steps: 0, regexChars: 0 };
  return { work, result: analyseContent({ text }, work) };
}

describe("content scoring work", () => {
  it.each(Object.entries(adversarialTexts()))("%s: bounded by the scored prefix, linear in it", (_name, text) => {
    const { work, result } = workOf(text);
    expect(work.steps).toBeGreaterThan(0);
    expect(work.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * MAX_CONTENT_CHARS);
    expect(work.regexChars).toBeLessThanOrEqual(REGEX_RUNS * MAX_CONTENT_CHARS);
    // Only the prefix is read: the same result and the same work as for the first MAX_CONTENT_CHARS characters alone.
    const prefix = workOf(text.slice(0, MAX_CONTENT_CHARS - 1));
    expect(result).toEqual(prefix.result);
    expect(work).toEqual(prefix.work);
    // Linear: half the text costs about half the work (an extra scan step per boundary at most).
    const half = workOf(text.slice(0, MAX_CONTENT_CHARS / 2)).work;
    expect(work.steps).toBeLessThanOrEqual(2 * half.steps + STEPS_PER_CHAR);
  });

  it("what lies past the scored prefix is not read: spam after 20,000 characters scores nothing", () => {
    const padding = "a".repeat(MAX_CONTENT_CHARS);
    expect(analyseContent({ text: `${padding} buy now, cheap! write to deals@example.com` })).toMatchObject({
      spamScore: 0,
      linkCount: 0,
      hasContactInfo: false,
    });
    expect(analyseContent({ text: `buy now, cheap! write to deals@example.com ${padding}` })).toMatchObject({
      spamScore: 25,
      hasContactInfo: true,
    });
  });

  it("finds links, emails and phone numbers as before", () => {
    expect(analyseContent({ text: "(see https://a.example/x), shop.xyz/deal, WWW.b.example." }).linkCount).toBe(3);
    expect(analyseContent({ text: "a sub.example.com link and version 2.0 and end." }).linkCount).toBe(1);
    expect(analyseContent({ text: "mail:x.y+z@mail.example.org!" }).hasContactInfo).toBe(true);
    expect(analyseContent({ text: "a@b.c and @example.com and me@ are not addresses" }).hasContactInfo).toBe(false);
    expect(analyseContent({ text: "call +1 415.555.0199 now" }).hasContactInfo).toBe(true);
    expect(analyseContent({ text: "+33 (6) 12 34" }).hasContactInfo).toBe(false);
    expect(analyseContent({ text: "order 12345678 then 1234" }).hasContactInfo).toBe(false);
  });
});
