// Signal: what a piece of user-written content carries (custom actions with `content`): links, contact details,
// spam and abuse vocabulary, and a hash of its normalised text so repetition across users can be counted.
// Linear time over at most the first MAX_CONTENT_CHARS characters (docs/security.md): links, emails and phone numbers are
// found by single passes that look at each character a bounded number of times; the only regular expressions left
// are alternations of fixed phrases, whose work per position is bounded by the longest phrase. (The regular
// expressions they replace backtracked quadratically: 100,000 × "a" took 13.5 s and stalled every other request.)
import { createHash } from "node:crypto";
import type { SignalContext, SignalSet } from "./types.js";

/** Only the start of a text is scored: enough for any comment or listing; the rest is neither read nor hashed. */
export const MAX_CONTENT_CHARS = 20_000;

/** The work done by one analysis, for the tests that bound it (work, not time; docs/security.md). */
export interface ContentWork {
  /** Characters visited by the scanning passes (links, emails, phone numbers, letters). */
  steps: number;
  /** Characters handed to regular expressions, summed over every expression run. */
  regexChars: number;
}

// Top-level domains that mark a bare "name.tld" as a link (as spam uses them); a scheme or www. always does.
const LINK_TLDS = new Set(["com", "net", "org", "io", "ru", "cn", "xyz", "top", "info", "biz", "site", "online", "click", "link", "shop"]);
const HANDLE_RE = /\b(?:whats ?app|telegram|t\.me|wechat|signal|kik|snap(?:chat)?)\b/i;
// Each pattern adds its weight to the spam score (0-100); phrases seen in commercial spam, scams and abuse.
const SPAM_PATTERNS: [RegExp, number][] = [
  [/\b(?:buy now|cheap|discount|free money|limited offer|act now|click here|order now|best price|100% free)\b/i, 25],
  [/\b(?:viagra|cialis|casino|betting|porn|xxx|escort|crypto ?(?:giveaway|doubling)|forex signals?)\b/i, 35],
  [/\b(?:earn \$?\d+|make money|work from home|double your|investment opportunity|guaranteed (?:income|returns))\b/i, 30],
  [/\b(?:verify your account|your account (?:has been|will be) (?:suspended|locked)|wire transfer|gift ?cards?)\b/i, 30],
  [/\b(?:kill yourself|kys|die in a fire)\b/i, 40],
];
/** Digits in a row (single separators allowed between them) that read as a phone number. */
const PHONE_DIGITS = 9;

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLetter = (c: number) => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
const isHostChar = (c: number) => isLetter(c) || isDigit(c) || c === 0x2d;
const isLocalChar = (c: number) => isLetter(c) || isDigit(c) || c === 0x2e || c === 0x5f || c === 0x25 || c === 0x2b || c === 0x2d;
const isDomainChar = (c: number) => isHostChar(c) || c === 0x2e;
/** Punctuation around a link in prose: "(see example.com)." */
const isWrapping = (c: number) => "()[]<>{}\"'.,;:!?".includes(String.fromCharCode(c));
/** Separators allowed between the digits of a phone number. */
const isPhoneSeparator = (c: number) => isSpace(c) || c === 0x28 || c === 0x29 || c === 0x2e || c === 0x2d;

function startsWithAt(text: string, at: number, prefix: string): boolean {
  return text.slice(at, at + prefix.length).toLowerCase() === prefix;
}

/** Whether text[start, end) is a link: a scheme or www., else name.tld with a known TLD (a path may follow). */
function isLink(text: string, start: number, end: number, work: ContentWork): boolean {
  while (start < end && isWrapping(text.charCodeAt(start))) {
    work.steps++;
    start++;
  }
  while (end > start && isWrapping(text.charCodeAt(end - 1))) {
    work.steps++;
    end--;
  }
  if (end - start < 4) return false;
  if (startsWithAt(text, start, "http://") || startsWithAt(text, start, "https://") || startsWithAt(text, start, "www.")) return true;
  // The host: labels of letters, digits and hyphens separated by single dots, up to a slash or the end.
  let labels = 0;
  let labelStart = start;
  let i = start;
  for (; i < end; i++) {
    work.steps++;
    const c = text.charCodeAt(i);
    if (c === 0x2f) break;
    if (c === 0x2e) {
      if (i === labelStart) return false;
      labels++;
      labelStart = i + 1;
    } else if (!isHostChar(c)) return false;
  }
  if (labels === 0 || i === labelStart) return false;
  return LINK_TLDS.has(text.slice(labelStart, i).toLowerCase());
}

/** Counts the links among the whitespace-separated words, visiting each character a bounded number of times. */
function countLinks(text: string, work: ContentWork): number {
  let count = 0;
  let i = 0;
  while (i < text.length) {
    while (i < text.length && isSpace(text.charCodeAt(i))) {
      work.steps++;
      i++;
    }
    const start = i;
    while (i < text.length && !isSpace(text.charCodeAt(i))) {
      work.steps++;
      i++;
    }
    if (i > start && isLink(text, start, i, work)) count++;
  }
  return count;
}

/**
 * Whether the text holds an email address: for each "@", the run of address characters before it and the run of
 * domain characters after it (a dot followed by two letters somewhere in it). Runs stop at the next "@", so each
 * character is looked at no more than twice however many "@" there are.
 */
function hasEmail(text: string, work: ContentWork): boolean {
  let at = text.indexOf("@");
  work.steps += at === -1 ? text.length : at;
  while (at !== -1) {
    work.steps++;
    let left = at;
    while (left > 0 && isLocalChar(text.charCodeAt(left - 1))) {
      work.steps++;
      left--;
    }
    if (left < at) {
      let letters = 0;
      let dotSeen = false;
      for (let i = at + 1; i < text.length && isDomainChar(text.charCodeAt(i)); i++) {
        work.steps++;
        const c = text.charCodeAt(i);
        if (c === 0x2e) {
          dotSeen = i > at + 1;
          letters = 0;
        } else if (isLetter(c)) {
          if (dotSeen && ++letters >= 2) return true;
        } else {
          dotSeen = false;
          letters = 0;
        }
      }
    }
    const next = text.indexOf("@", at + 1);
    work.steps += (next === -1 ? text.length : next) - at; // what indexOf looked at
    at = next;
  }
  return false;
}

/** Whether the text holds PHONE_DIGITS digits in a row, each optionally preceded by "+" and followed by one separator. */
function hasPhone(text: string, work: ContentWork): boolean {
  let run = 0;
  let i = 0;
  while (i < text.length) {
    work.steps++;
    let j = i;
    if (text.charCodeAt(j) === 0x2b) j++;
    if (j < text.length && isDigit(text.charCodeAt(j))) {
      if (++run >= PHONE_DIGITS) return true;
      j++;
      if (j < text.length && isPhoneSeparator(text.charCodeAt(j))) j++;
      i = j;
    } else {
      run = 0;
      i++;
    }
  }
  return false;
}

function matches(re: RegExp, text: string, work: ContentWork): boolean {
  work.regexChars += text.length;
  return re.test(text);
}

export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[^\p{L}\p{N} ]/gu, "")
    .trim();
}

export function analyseContent(
  content: { text?: string; title?: string; links?: string[] },
  work: ContentWork = { steps: 0, regexChars: 0 },
): NonNullable<SignalSet["content"]> {
  const text = [content.title ?? "", content.text ?? ""].join("\n").slice(0, MAX_CONTENT_CHARS);
  const linkCount = countLinks(text, work) + (content.links?.length ?? 0);
  const hasContactInfo = hasEmail(text, work) || hasPhone(text, work) || matches(HANDLE_RE, text, work);
  let spamScore = 0;
  for (const [re, w] of SPAM_PATTERNS) if (matches(re, text, work)) spamScore += w;
  // Shouting: mostly capitals over a long enough text; many exclamation marks.
  let letters = 0;
  let capitals = 0;
  let exclamations = 0;
  for (let i = 0; i < text.length; i++) {
    work.steps++;
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      letters++;
      if (c <= 0x5a) capitals++;
    } else if (c === 0x21) exclamations++;
  }
  if (letters >= 20 && capitals / letters > 0.7) spamScore += 15;
  if (exclamations >= 5) spamScore += 10;
  work.regexChars += 2 * text.length; // normaliseText's two replacements
  const hash = createHash("sha256").update(normaliseText(text)).digest("hex");
  return { hash, linkCount, hasContactInfo, spamScore: Math.min(100, spamScore) };
}

export function contentSignal({ input }: SignalContext): SignalSet["content"] {
  const c = input.content;
  if (!c || (!c.text && !c.title && !c.links?.length)) return undefined;
  return analyseContent(c);
}
