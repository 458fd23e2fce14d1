// Inputs built to make a content scorer backtrack ("ReDoS"; docs/security.md): long runs without the character a
// pattern waits for, and many almost-matches. Shared by the work-bound test (content.test.ts) and the timing figure
// of `npm run bench` (bench/content.ts).

/** 100,000 characters each: five times more than is scored, as the contract allows. */
export const ADVERSARIAL_LENGTH = 100_000;

export function adversarialTexts(n = ADVERSARIAL_LENGTH): Record<string, string> {
  const fill = (unit: string) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
  return {
    letters: fill("a"),
    "letters then @": `${fill("a").slice(1)}@`,
    "@ then letters": `@${fill("a").slice(1)}`,
    "a@ repeated": fill("a@"),
    "a. repeated": fill("a."),
    "a@a. repeated": fill("a@a."),
    "digits in eights": fill("12345678 x"),
    "digit and separator": fill("1-"),
    "plus signs": fill("+"),
    "www. repeated": fill("www."),
    "long words": fill(`${"x".repeat(999)} `),
    punctuation: fill("(."),
    "near spam": fill("earn $"),
  };
}
