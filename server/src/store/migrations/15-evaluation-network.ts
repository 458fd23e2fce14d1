// Migration 15 (docs/detection.md): the network an evaluation came from, for "has this user been seen on this network".
// `network` is the IP's /24 (IPv4) or /48 (IPv6) as a CIDR string; `asn` its autonomous system when that network
// belongs to its users (an ISP, a carrier, a company), null for clouds and VPN or proxy providers, whose ASN strangers
// share. No index: the question is asked per user, on the user's own rows (evaluations_env_user_time), and stops at
// the first trusted match; a new index would cost every evaluation a write for a lookup that needs none.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").addColumn("network", "text").execute();
  await db.schema.alterTable("evaluations").addColumn("asn", "bigint").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("evaluations").dropColumn("asn").execute();
  await db.schema.alterTable("evaluations").dropColumn("network").execute();
}
