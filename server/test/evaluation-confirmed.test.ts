// Migration 23 (trust boundary): evaluations written before it are confirmed when someone other than the
// browser said they were the user's: let in and consumed, let in with a signed or backend-named user, or with a passed
// challenge; the devices they came from become the user's signed-in devices, and what those devices let the user do
// afterwards is confirmed too. Trusted history then reads those — on both stores.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Store } from "../src/store/db.js";
import * as m23 from "../src/store/migrations/23-evaluation-confirmed.js";
import { describeStores, storeBefore, type TestDatabase } from "./helpers.js";
import { ledgerOf } from "./ledger.js";

const ENV = "env_m23";
const ORDINARY = JSON.stringify({ security: { vpn: false, proxy: false, tor: false, hosting: false } });

interface Old {
  id: string;
  user: string;
  device: string;
  verdict: string;
  consumed: 0 | 1;
  country: string;
  checks?: Record<string, unknown>;
  challenge?: string;
  confirmed: 0 | 1;
}

const ROWS: Old[] = [
  // usr_a signed in at home (GB) on d1, then opened pages from France on it; a stranger's browser (d2) named usr_a
  // from Germany, and a login there was let in but never consumed (a wrong password).
  { id: "ev_login", user: "usr_a", device: "d1", verdict: "allow", consumed: 1, country: "GB", confirmed: 1 },
  { id: "ev_page", user: "usr_a", device: "d1", verdict: "allow", consumed: 0, country: "FR", confirmed: 1 },
  { id: "ev_named", user: "usr_a", device: "d2", verdict: "allow", consumed: 0, country: "DE", confirmed: 0 },
  { id: "ev_wrong_password", user: "usr_a", device: "d2", verdict: "allow", consumed: 0, country: "DE", confirmed: 0 },
  // A consumed restriction lets the user in; a consumed denial does not.
  { id: "ev_restrict", user: "usr_b", device: "d3", verdict: "restrict", consumed: 1, country: "ES", confirmed: 1 },
  { id: "ev_denied", user: "usr_b", device: "d4", verdict: "deny", consumed: 1, country: "IT", confirmed: 0 },
  // A signed user id (or a backend evaluation) is the user's own without a consume.
  {
    id: "ev_signed",
    user: "usr_b",
    device: "d5",
    verdict: "allow",
    consumed: 0,
    country: "PT",
    checks: { identity_verified: true },
    confirmed: 1,
  },
  {
    id: "ev_unsigned",
    user: "usr_b",
    device: "d6",
    verdict: "allow",
    consumed: 0,
    country: "BE",
    checks: { identity_verified: false },
    confirmed: 0,
  },
  // A challenge passed (verified, then completed) makes its evaluation the user's; a failed one does not, consumed or not.
  { id: "ev_verified", user: "usr_c", device: "d7", verdict: "challenge", consumed: 0, country: "JP", challenge: "verified", confirmed: 1 },
  {
    id: "ev_completed",
    user: "usr_c",
    device: "d8",
    verdict: "challenge",
    consumed: 1,
    country: "KR",
    challenge: "completed",
    confirmed: 1,
  },
  { id: "ev_failed", user: "usr_c", device: "d9", verdict: "challenge", consumed: 1, country: "CN", challenge: "failed", confirmed: 0 },
];

describeStores("migration 23 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store;
  let ledger: ReturnType<typeof ledgerOf>;

  beforeAll(async () => {
    // The store as it was before migration 23, holding rows written then.
    const before = await storeBefore(kind, m23);
    ({ database, store } = before);
    const db = before.db;
    const at = 1_700_000_000_000;
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
          device_id: r.device,
          challenge_id: r.challenge ? `ch_${r.id}` : null,
          ip: "198.51.100.7",
          country_code: r.country,
          somewhere: 1,
          geolocation: ORDINARY,
          checks: r.checks ? JSON.stringify(r.checks) : null,
          consumed: r.consumed,
          created_at: at + i,
          updated_at: at + i,
        })),
      )
      .execute();
    await db
      .insertInto("challenges")
      .values(
        ROWS.filter((r) => r.challenge).map((r) => ({
          id: `ch_${r.id}`,
          environment_id: ENV,
          evaluation_id: r.id,
          user_id: r.user,
          type: "account_takeover",
          status: r.challenge,
          config: "{}",
          expires_at: at + 3_600_000,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    await m23.up(store.db as unknown as Kysely<unknown>);
    // The familiarity ledger copies the filled columns (migration 30): the checks ask it.
    ledger = ledgerOf(store);
    await ledger.rebuild();
  });

  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("confirms what was consumed while it let the user in, signed, or passed its challenge", async () => {
    const rows = await store.db.selectFrom("evaluations").select(["id", "confirmed"]).where("environment_id", "=", ENV).execute();
    const got = Object.fromEntries(rows.map((r) => [r.id, Number(r.confirmed)]));
    expect(got).toEqual(Object.fromEntries(ROWS.map((r) => [r.id, r.confirmed])));
  });

  it("records each device a user has a confirmed evaluation on, once", async () => {
    const rows = await store.db
      .selectFrom("device_confirmations")
      .select(["device_id", "user_id"])
      .where("environment_id", "=", ENV)
      .execute();
    const want = [...new Set(ROWS.filter((r) => r.confirmed).map((r) => `${r.user}/${r.device}`))].sort();
    expect(rows.map((r) => `${r.user_id}/${r.device_id}`).sort()).toEqual(want);
  });

  it("trusts what a confirmed device of the user let in, and nothing a stranger's browser did", async () => {
    // Home, and the pages the signed-in laptop opened in France: the user's places.
    expect(await ledger.country(ENV, "usr_a", "GB")).toEqual({ seen: true, any: true });
    expect(await ledger.country(ENV, "usr_a", "FR")).toEqual({ seen: true, any: true });
    // Where a browser that never signed in named the user, or failed the password: not theirs.
    expect(await ledger.country(ENV, "usr_a", "DE")).toEqual({ seen: false, any: true });
    for (const [country, seen] of [
      ["ES", true],
      ["IT", false],
      ["PT", true],
      ["BE", false],
    ] as const)
      expect((await ledger.country(ENV, "usr_b", country)).seen, country).toBe(seen);
    for (const [country, seen] of [
      ["JP", true],
      ["KR", true],
      ["CN", false],
    ] as const)
      expect((await ledger.country(ENV, "usr_c", country)).seen, country).toBe(seen);
  });
});
