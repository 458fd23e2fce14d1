// Signal: what a piece of user-written content carries (custom actions with `content`): links, contact details,
// spam and abuse vocabulary, and a hash of its normalised text so repetition across users can be counted.
import { createHash } from "node:crypto";
import type { SignalContext, SignalSet } from "./types.js";

const URL_RE =
  /\b(?:https?:\/\/|www\.)[^\s<>"']+|\b[a-z0-9-]+\.(?:com|net|org|io|ru|cn|xyz|top|info|biz|site|online|click|link|shop)\b(?:\/[^\s]*)?/gi;
const EMAIL_RE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const PHONE_RE = /(?:\+?\d[\s().-]?){9,}/;
const HANDLE_RE = /\b(?:whats ?app|telegram|t\.me|wechat|signal|kik|snap(?:chat)?)\b/i;
// Each pattern adds its weight to the spam score (0-100); phrases seen in commercial spam, scams and abuse.
const SPAM_PATTERNS: [RegExp, number][] = [
  [/\b(?:buy now|cheap|discount|free money|limited offer|act now|click here|order now|best price|100% free)\b/i, 25],
  [/\b(?:viagra|cialis|casino|betting|porn|xxx|escort|crypto ?(?:giveaway|doubling)|forex signals?)\b/i, 35],
  [/\b(?:earn \$?\d+|make money|work from home|double your|investment opportunity|guaranteed (?:income|returns))\b/i, 30],
  [/\b(?:verify your account|your account (?:has been|will be) (?:suspended|locked)|wire transfer|gift ?cards?)\b/i, 30],
  [/\b(?:kill yourself|kys|die in a fire)\b/i, 40],
];

export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[^\p{L}\p{N} ]/gu, "")
    .trim();
}

export function analyseContent(content: { text?: string; title?: string; links?: string[] }): NonNullable<SignalSet["content"]> {
  const text = [content.title ?? "", content.text ?? ""].join("\n");
  const linkCount = (text.match(URL_RE) ?? []).length + (content.links?.length ?? 0);
  const hasContactInfo = EMAIL_RE.test(text) || PHONE_RE.test(text) || HANDLE_RE.test(text);
  let spamScore = 0;
  for (const [re, w] of SPAM_PATTERNS) if (re.test(text)) spamScore += w;
  // Shouting: mostly capitals over a long enough text; many exclamation marks.
  const letters = text.replace(/[^A-Za-z]/g, "");
  if (letters.length >= 20 && letters.replace(/[^A-Z]/g, "").length / letters.length > 0.7) spamScore += 15;
  if ((text.match(/!/g) ?? []).length >= 5) spamScore += 10;
  const hash = createHash("sha256").update(normaliseText(text)).digest("hex");
  return { hash, linkCount, hasContactInfo, spamScore: Math.min(100, spamScore) };
}

export function contentSignal({ input }: SignalContext): SignalSet["content"] {
  const c = input.content;
  if (!c || (!c.text && !c.title && !c.links?.length)) return undefined;
  return analyseContent(c);
}
