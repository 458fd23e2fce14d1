// How guessable an operator's new password is (docs/console.md "Security"): zxcvbn-ts, a maintained port of Dropbox's
// zxcvbn, estimates the guesses a cracker needs from its common-password, name and word lists (shipped inside the npm
// packages: nothing is fetched), keyboard patterns, repeats, sequences, dates and l33t speak, and the operator's own
// email given as words to avoid. No hand-written list: "aaaaaaaaaaaa" and "ana@example.com2024" are weak because the
// library says so.
import { badRequest } from "../errors.js";

/**
 * zxcvbn's score 3 is "safely unguessable: moderate protection from offline slow-hash scenario" (at least 10^8
 * guesses); with scrypt hashes and sign-in limited per (email, address), an online guesser needs years per address.
 */
export const MIN_PASSWORD_SCORE = 3;

type Checker = { check(password: string, userInputs?: (string | number)[]): Score };
type Score = { score: number; feedback: { warning: string | null; suggestions: string[] } };

/**
 * The dictionaries (about 9 MB of packages) are loaded on the first password chosen, not at start: most processes
 * (the CLI, a server no operator joins today) never need them. Measured: about 0.25 s to load, 30 MB of heap kept. A
 * failed load is tried again next time. zxcvbn scores the first 256 characters only (its maxLength default), so the
 * work per check is bounded (≤ 60 ms measured, for 1,024 characters of one letter).
 */
let checker: Promise<Checker> | undefined;

function load(): Promise<Checker> {
  checker ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import("@zxcvbn-ts/core"),
      import("@zxcvbn-ts/language-common"),
      import("@zxcvbn-ts/language-en"),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
    });
  })();
  checker.catch(() => {
    checker = undefined;
  });
  return checker;
}

/** The words a password of this operator must not lean on: its email, the email's parts, the product's name. */
function personalWords(email: string): string[] {
  const [local = "", domain = ""] = email.toLowerCase().split("@");
  return [email.toLowerCase(), local, domain, ...local.split(/[._+-]/), ...domain.split("."), "tessera", "console"].filter(
    (w) => w.length >= 3,
  );
}

/** The score and the library's own advice, for a password chosen by the operator with this email. */
export async function passwordStrength(password: string, email: string): Promise<Score> {
  return (await load()).check(password, personalWords(email));
}

/** Refuses a guessable password with a 400 naming `password` and saying why, in the library's words. */
export async function checkPasswordStrength(password: string, email: string): Promise<void> {
  const { score, feedback } = await passwordStrength(password, email);
  if (score >= MIN_PASSWORD_SCORE) return;
  const advice = [feedback.warning, ...feedback.suggestions].filter((s): s is string => !!s);
  throw badRequest(["This password is too easy to guess.", ...advice].join(" "), "password");
}
