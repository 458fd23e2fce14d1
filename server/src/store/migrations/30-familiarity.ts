// Migration 30 (docs/detection.md, "How to add a check"): the familiarity ledger. What a user was let in with (a
// country, a provider's ASN, a time zone, a language, an address, a network) was a column of `evaluations` per kind
// (migrations 15, 21, 22, 24), each asked by scanning the user's trusted evaluations. Now it is one row per user,
// dimension and value, written when an evaluation becomes trusted (store/familiarity.ts), so that a new "is new X"
// check is a dimension and a check definition, with no migration.
// - `familiarity`: (environment, user, dimension, value, first_seen, last_seen). Its primary key answers both questions
//   the checks ask (this value? any value of the dimension?). Erasing a user deletes their rows; retention deletes a
//   row once its latest trusted evaluation is older than the retention period, as it deletes that evaluation: the
//   ledger says what the trusted evaluations still stored say, no more.
// - `evaluations.familiar`: the values an evaluation makes familiar once trusted, by dimension (a JSON object), kept
//   on the row because it may be confirmed later (the backend consumes it, its challenge is passed).
// Filled in this migration's transaction: the ledger from the trusted evaluations' columns, and `familiar` on the
// evaluations that may still be confirmed (a let-in evaluation not consumed yet, or one with a challenge). The names
// and values are those the live code records (server/src/checks/families/familiarity.ts), copied here: a migration
// never imports live code. Columns the ledger replaces stay (written, no longer read): see docs/detection.md.
import { type Kysely, SqliteAdapter, sql } from "kysely";

/** Each dimension recorded before this migration, and the expression of an evaluation's row that gives its value. */
const DIMENSIONS: Array<[name: string, value: string, when: string]> = [
  ["ip", "ip", "ip is not null"],
  ["network", "network", "network is not null"],
  // Migration 15's ASN of a network its users own; migration 21's of a VPN, proxy, Tor or hosting exit.
  ["network_asn", "cast(asn as text)", "asn is not null"],
  ["provider_asn", "cast(provider_asn as text)", "provider_asn is not null"],
  // A country is one the user was in only on an ordinary network (migration 21's `somewhere`).
  ["country", "country_code", "somewhere = 1 and country_code is not null"],
  ["timezone", "timezone", "timezone is not null"],
  ["language", "language", "language is not null"],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("familiarity")
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("dimension", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("familiarity_pk", ["environment_id", "user_id", "dimension", "value"])
    .execute();
  await db.schema.alterTable("evaluations").addColumn("familiar", "text").execute();

  const rows = DIMENSIONS.map(
    ([name, value, when]) =>
      sql`select environment_id, user_id, cast(${sql.lit(name)} as text) as dimension, ${sql.raw(value)} as value, created_at
          from evaluations where confirmed = 1 and user_id is not null and ${sql.raw(when)}`,
  );
  await sql`
    insert into familiarity (environment_id, user_id, dimension, value, first_seen, last_seen)
    select environment_id, user_id, dimension, value, min(created_at), max(created_at)
    from (${sql.join(rows, sql` union all `)}) t
    group by environment_id, user_id, dimension, value`.execute(db);

  // What a later confirmation (the consume of a let-in evaluation, a passed challenge) will record.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const pairs = sql.join(
    DIMENSIONS.map(([name, value, when]) => sql`${sql.lit(name)}, case when ${sql.raw(when)} then ${sql.raw(value)} end`),
  );
  const object = sqlite ? sql`json_object(${pairs})` : sql`cast(json_strip_nulls(json_build_object(${pairs})) as text)`;
  await sql`
    update evaluations set familiar = ${object}
    where confirmed = 0 and user_id is not null
      and (challenge_id is not null or (consumed = 0 and verdict in ('allow', 'restrict')))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").dropColumn("familiar").execute();
  await db.schema.dropTable("familiarity").execute();
}
