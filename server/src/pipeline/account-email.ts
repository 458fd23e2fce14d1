// The account an email names (docs/identity.md): sign-ups often carry an email and no user id yet, so such an evaluation
// finds its account by this key. Lower case and trimmed everywhere. For the webmail providers whose own documentation
// says several spellings reach one inbox, those spellings are one key, because each is a free new "account" for a
// repeat-trial abuser and no honest person holds two accounts that differ only so:
// - Gmail ignores dots in the local part and anything after "+"; googlemail.com is gmail.com;
// - Outlook.com (outlook, hotmail, live, msn) and iCloud (icloud, me, mac) deliver "name+tag" to "name"; dots count;
// - Yahoo's disposable addresses are "name-keyword": the part after "-" goes.
// Every other domain keeps its "+" and dots: we cannot know that its server treats them so.
import { domainToASCII } from "node:url";
import validator from "validator";

const OPTIONS = {
  all_lowercase: true,
  gmail_lowercase: true,
  gmail_remove_dots: true,
  gmail_remove_subaddress: true,
  gmail_convert_googlemaildotcom: true,
  outlookdotcom_lowercase: true,
  outlookdotcom_remove_subaddress: true,
  yahoo_lowercase: true,
  yahoo_remove_subaddress: true,
  icloud_lowercase: true,
  icloud_remove_subaddress: true,
};

/** A domain that IDNA's mapping leaves as it is: ASCII letters, digits, dots and hyphens, not punycode. */
const PLAIN_DOMAIN = /^[a-z0-9.-]+$/;

/**
 * An email with its domain as the mailer delivers to it: IDNA's mapping (UTS #46, node:url's domainToASCII, which
 * nodemailer applies to every recipient's domain) folds full-width and circled letters, soft hyphens and the like, and
 * the Unicode and punycode (xn--) forms of one domain, into one ASCII domain. A domain IDNA refuses is kept as written.
 */
export function deliveredAddress(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return email;
  const domain = email.slice(at + 1);
  if (PLAIN_DOMAIN.test(domain) && !domain.includes("xn--")) return email;
  const ascii = domainToASCII(domain);
  return ascii ? `${email.slice(0, at)}@${ascii}` : email;
}

/**
 * The account key of an email address, its domain as the mailer delivers to it (deliveredAddress: one inbox whose
 * domain is spelt in Unicode forms is one account, as it is one recipient for the send caps); an address validator
 * cannot parse is keyed by its trimmed lower case.
 */
export function accountEmailKey(email: string): string {
  const trimmed = deliveredAddress(email.trim().toLowerCase());
  if (trimmed.indexOf("@") <= 0) return trimmed;
  const normalised = validator.normalizeEmail(trimmed, OPTIONS);
  return normalised || trimmed;
}
