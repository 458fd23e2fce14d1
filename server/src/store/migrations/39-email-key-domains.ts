// Migration 39 (docs/identity.md, "Accounts"): an account's email key reads the address's domain as the mailer delivers
// to it. IDNA's mapping folds the Unicode spellings of a domain (full-width or circled letters, a soft hyphen, the
// Unicode and punycode forms) into one ASCII domain, so "x@ｇｍａｉｌ.com" is the account "x@gmail.com" names. The
// stored keys of addresses written with characters outside ASCII are computed again here. Every other key is
// unchanged: an ASCII domain maps to itself. The key is computed as the live code computed it when this migration
// shipped (pipeline/account-email.ts): the domain's mapping below, then migration 14's copy of the key (validator's
// normalizeEmail as it was then); a migration never imports live code.
import { domainToASCII } from "node:url";
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { accountEmailKey as keyBefore } from "./14-device-identity.js";

/** The account key of an email address; `mapDomain` false: as before this migration (its `down`). */
export function accountEmailKey(email: string, mapDomain = true): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf("@");
  const ascii = mapDomain && at > 0 ? domainToASCII(lower.slice(at + 1)) : "";
  return keyBefore(ascii ? `${lower.slice(0, at)}@${ascii}` : lower);
}

/** The stored keys of the addresses with a character outside printable ASCII, computed again. */
async function rekey(db: Kysely<unknown>, mapDomain: boolean): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const outsideAscii = postgres ? sql`email ~ '[^ -~]'` : sql`email glob '*[^ -~]*'`;
  const rows = await sql<{ id: string; email: string; email_key: string | null }>`
    select id, email, email_key from users where email is not null and ${outsideAscii}`.execute(db);
  for (const row of rows.rows) {
    const key = accountEmailKey(row.email, mapDomain);
    if (key !== row.email_key) await sql`update users set email_key = ${key} where id = ${row.id}`.execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rekey(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rekey(db, false);
}
