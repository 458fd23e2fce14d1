// Migration 21 (throughput): two columns so that the country and provider familiarity checks
// (store/detection.ts) read numbers instead of matching LIKE patterns against the geolocation JSON of every one of the
// user's evaluations:
// - `somewhere`: 1 when the evaluation's network is an ordinary one, the four `security` flags of its geolocation
//   (pipeline/decide.ts) all false: not a VPN, proxy, Tor or hosting exit, so its country is where the user was;
//   0 otherwise, and when it has no geolocation;
// - `provider_asn`: the geolocation's ASN when one of those flags is set (the network is such an exit), else null.
//   With `asn` (migration 15: the ASN when the network is its users' own) it names every ASN an evaluation came
//   through, as the geolocation JSON does; only rows older than migration 15 on an ordinary network lack theirs (their
//   `asn` was never filled), so the provider familiarity check no longer counts those.
// Existing rows are filled from their geolocation JSON, in this migration's transaction. No index: both questions are
// asked per user, on the user's own rows (evaluations_env_user_time), as migration 15's are.
import { type Kysely, SqliteAdapter, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("evaluations")
    .addColumn("somewhere", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("evaluations").addColumn("provider_asn", "bigint").execute();
  // One flag of the geolocation's `security` compared with a JSON boolean, and its `asn`, in each dialect: SQLite's
  // json_extract answers true as 1 and false as 0 (a missing flag as null: neither), PostgreSQL compares jsonb values.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const is = (name: string, value: boolean) =>
    sqlite
      ? sql.raw(`json_extract(geolocation, '$.security.${name}') = ${value ? 1 : 0}`)
      : sql.raw(`(geolocation::jsonb -> 'security' -> '${name}') = '${value}'::jsonb`);
  const asn = sqlite ? sql.raw("json_extract(geolocation, '$.asn')") : sql.raw("(geolocation::jsonb ->> 'asn')::bigint");
  const FLAGS = ["vpn", "proxy", "tor", "hosting"];
  await sql`
    update evaluations set
      somewhere = case when ${sql.join(
        FLAGS.map((f) => is(f, false)),
        sql` and `,
      )} then 1 else 0 end,
      provider_asn = case when ${sql.join(
        FLAGS.map((f) => is(f, true)),
        sql` or `,
      )} then ${asn} end
    where geolocation is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").dropColumn("provider_asn").execute();
  await db.schema.alterTable("evaluations").dropColumn("somewhere").execute();
}
