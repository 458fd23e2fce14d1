// Migration 21 (docs/operations.md): evaluations written before it get `somewhere` and `provider_asn` from their geolocation
// JSON, saying what the LIKE patterns the familiarity checks used before said of them — on both stores.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Store } from "../src/store/db.js";
import * as m21 from "../src/store/migrations/21-evaluation-exits.js";
import { describeStores, storeBefore, type TestDatabase } from "./helpers.js";
import { ledgerOf } from "./ledger.js";

const ENV = "env_m21";
const ORDINARY = { vpn: false, proxy: false, tor: false, hosting: false };
// The patterns store/detection.ts matched before migration 21.
const SOMEWHERE = '%"security":{"vpn":false,"proxy":false,"tor":false,"hosting":false}%';
const asnPattern = (asn: number) => `%"asn":${asn},%`;

/** Geolocation JSON as pipeline/decide.ts writes it (keys in this order). */
function geo(g: { country_code?: string; asn?: number; as_org?: string; security: typeof ORDINARY }) {
  return JSON.stringify({
    ip: "198.51.100.7",
    ...(g.country_code ? { country: "Somewhere", country_code: g.country_code } : {}),
    latitude: 51.5,
    longitude: -0.12,
    ...(g.asn !== undefined ? { asn: g.asn } : {}),
    ...(g.as_org ? { as_org: g.as_org } : {}),
    security: g.security,
  });
}

interface Old {
  id: string;
  user: string;
  verdict: string;
  country_code: string | null;
  /** Migration 15's column: the ASN of an ordinary network (null on rows written before it, and on exits). */
  asn: number | null;
  geolocation: string | null;
  want: { somewhere: number; provider_asn: number | null };
}

const ROWS: Old[] = [
  {
    id: "ev_home",
    user: "usr_a",
    verdict: "allow",
    country_code: "GB",
    asn: 20712,
    geolocation: geo({ country_code: "GB", asn: 20712, as_org: "Andrews & Arnold", security: ORDINARY }),
    want: { somewhere: 1, provider_asn: null },
  },
  {
    id: "ev_vpn",
    user: "usr_a",
    verdict: "allow",
    country_code: "NL",
    asn: null,
    geolocation: geo({ country_code: "NL", asn: 60068, as_org: "Datacamp", security: { ...ORDINARY, vpn: true } }),
    want: { somewhere: 0, provider_asn: 60068 },
  },
  {
    id: "ev_cloud",
    user: "usr_b",
    verdict: "allow",
    country_code: "US",
    asn: null,
    geolocation: geo({ country_code: "US", asn: 16509, security: { ...ORDINARY, hosting: true } }),
    want: { somewhere: 0, provider_asn: 16509 },
  },
  {
    id: "ev_tor",
    user: "usr_b",
    verdict: "deny",
    country_code: "DE",
    asn: null,
    geolocation: geo({ country_code: "DE", asn: 24940, security: { ...ORDINARY, tor: true } }),
    want: { somewhere: 0, provider_asn: 24940 },
  },
  {
    // A proxy the request's own headers revealed, on an ISP's network: an exit too (security.proxy).
    id: "ev_forwarded",
    user: "usr_b",
    verdict: "allow",
    country_code: "FR",
    asn: 3215,
    geolocation: geo({ country_code: "FR", asn: 3215, security: { ...ORDINARY, proxy: true } }),
    want: { somewhere: 0, provider_asn: 3215 },
  },
  {
    id: "ev_proxy_no_asn",
    user: "usr_b",
    verdict: "allow",
    country_code: null,
    asn: null,
    geolocation: geo({ security: { ...ORDINARY, proxy: true } }),
    want: { somewhere: 0, provider_asn: null },
  },
  {
    // A private address: geolocation without a place or an ASN, on no exit.
    id: "ev_private",
    user: "usr_b",
    verdict: "allow",
    country_code: null,
    asn: null,
    geolocation: geo({ security: ORDINARY }),
    want: { somewhere: 1, provider_asn: null },
  },
  {
    id: "ev_no_ip",
    user: "usr_b",
    verdict: "allow",
    country_code: null,
    asn: null,
    geolocation: null,
    want: { somewhere: 0, provider_asn: null },
  },
];

describeStores("migration 21 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store;
  let ledger: ReturnType<typeof ledgerOf>;

  beforeAll(async () => {
    // The store as it was before migration 21, holding rows written then.
    const before = await storeBefore(kind, m21);
    ({ database, store } = before);
    const db = before.db;
    await db
      .insertInto("evaluations")
      .values(
        ROWS.map((r, i) => ({
          id: r.id,
          environment_id: ENV,
          action: "login",
          verdict: r.verdict,
          reasons: "[]",
          user_id: r.user,
          ip: "198.51.100.7",
          country_code: r.country_code,
          asn: r.asn,
          geolocation: r.geolocation,
          // What let the user in was consumed by the backend: the user's own (migration 23 confirms such rows).
          consumed: r.verdict === "allow" ? 1 : 0,
          confirmed: r.verdict === "allow" ? 1 : 0,
          created_at: 1_700_000_000_000 + i,
          updated_at: 1_700_000_000_000 + i,
        })),
      )
      .execute();
    await m21.up(store.db as unknown as Kysely<unknown>);
    // The familiarity ledger copies the filled columns (migration 30): the checks ask it.
    ledger = ledgerOf(store);
    await ledger.rebuild();
  });

  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("fills somewhere and provider_asn from each row's geolocation", async () => {
    const rows = await store.db.selectFrom("evaluations").select(["id", "somewhere", "provider_asn"]).orderBy("id").execute();
    expect(
      rows.map((r) => ({
        id: r.id,
        somewhere: Number(r.somewhere),
        provider_asn: r.provider_asn === null ? null : Number(r.provider_asn),
      })),
    ).toEqual(ROWS.map((r) => ({ id: r.id, ...r.want })).sort((a, b) => (a.id < b.id ? -1 : 1)));
  });

  it("says of every row what the LIKE patterns said", async () => {
    for (const r of ROWS) {
      const row = await store.db
        .selectFrom("evaluations")
        .select(["somewhere", "provider_asn", "asn"])
        .where("id", "=", r.id)
        .executeTakeFirstOrThrow();
      const like = async (pattern: string) =>
        (await store.db.selectFrom("evaluations").select("id").where("id", "=", r.id).where("geolocation", "like", pattern).execute())
          .length > 0;
      expect(Number(row.somewhere) === 1, r.id).toBe(await like(SOMEWHERE));
      const asn = r.geolocation ? (JSON.parse(r.geolocation) as { asn?: number }).asn : undefined;
      if (asn !== undefined) {
        expect(await like(asnPattern(asn)), r.id).toBe(true);
        // Migration 15's `asn` of an ordinary network, or migration 21's of an exit: the JSON's ASN either way.
        expect(
          [row.provider_asn, row.asn].map((v) => (v === null ? null : Number(v))),
          r.id,
        ).toContain(asn);
      } else expect(row.provider_asn, r.id).toBeNull();
    }
  });

  it("answers the familiarity checks from the filled columns", async () => {
    // usr_a was let in at home in GB and through a VPN exit in NL: only GB is a place.
    expect(await ledger.country(ENV, "usr_a", "GB")).toEqual({ seen: true, any: true });
    expect(await ledger.country(ENV, "usr_a", "NL")).toEqual({ seen: false, any: true });
    // usr_b came only through exits (and a denied Tor exit, which is not trusted), and from an address with no place.
    expect(await ledger.country(ENV, "usr_b", "US")).toEqual({ seen: false, any: false });
    expect(await ledger.provider(ENV, "usr_a", 60068)).toBe(true);
    expect(await ledger.provider(ENV, "usr_a", 20712)).toBe(true);
    expect(await ledger.provider(ENV, "usr_a", 16509)).toBe(false);
    expect(await ledger.provider(ENV, "usr_b", 16509)).toBe(true);
    expect(await ledger.provider(ENV, "usr_b", 3215)).toBe(true);
    // The Tor exit's evaluation was denied: not trusted.
    expect(await ledger.provider(ENV, "usr_b", 24940)).toBe(false);
    // Not a prefix of a longer ASN (as the pattern's trailing comma ensured).
    expect(await ledger.provider(ENV, "usr_b", 165)).toBe(false);
  });
});
