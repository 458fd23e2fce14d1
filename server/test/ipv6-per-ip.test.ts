// Per-IP means per-network for IPv6 (docs/detection.md, docs/security.md): every per-IP count of detection keys an
// IPv6 client by its /64 (geo/ip.ts, perIpKey; migration 37), as the send caps and rate limits do. A subscriber is
// given a /64 at least and privacy extensions redraw the interface id daily or per connection, so a client rotating
// its address within its /64 is one IP; two /64s of one /48 are two IPs of one network (/48, unchanged). Through the
// real client API on both stores; every case fails on the code that counted raw addresses.
import { Evaluation } from "@tessera/sdk/contract";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { perIpKey } from "../src/geo/ip.js";
import type { Store } from "../src/store/db.js";
import * as m37 from "../src/store/migrations/37-evaluation-ip-key.js";
import {
  BROWSER_UA,
  describeStores,
  fakeComponents,
  IPHONE_UA,
  iphoneComponents,
  startTestApp,
  storeBefore,
  type TestApp,
  type TestDatabase,
} from "./helpers.js";
import { strict } from "./strict.js";

interface Browser {
  components: Record<string, { value: unknown }>;
  token: string;
  ua: string;
}

describeStores("per-IP counts of an IPv6 client by its /64 on %s", (kind) => {
  let t: TestApp;
  let seq = 0;
  beforeAll(async () => {
    // X-Forwarded-For carries the client address of each case (one trusted proxy in front).
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000" });
  });
  afterAll(async () => t?.close());

  const id = (prefix: string) => `${prefix}-${kind}-${++seq}`;
  /** A /48 of its own per case and store (third group), its /64s by number, an address of one by interface id. */
  const site = (prefix: string) => {
    const group = ((kind === "sqlite" ? 0x7a00 : 0x7b00) + ++seq).toString(16);
    return (subnet: number, iid: number) =>
      `${prefix}:${group}:${subnet.toString(16)}:${(0x1000 + iid).toString(16)}:${(iid * 797).toString(16)}::${iid.toString(16)}`;
  };
  /** Amazon's IPv6 (AS14618, a datacenter) and a UK ISP's (Sky, residential) in the shipped data. */
  const aws = () => site("2600:1f18");
  const home = () => site("2a02:c7f");
  const browser = (): Browser => {
    const seed = id("browser");
    return { components: fakeComponents(seed), token: `tok-${seed}-xxxxxxxx`, ua: BROWSER_UA };
  };
  const firefox = (): Browser => {
    const seed = id("firefox");
    return {
      components: fakeComponents(seed, { platform: "Win32", userAgentData: undefined }),
      token: `tok-${seed}-xxxxxxxx`,
      ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:144.0) Gecko/20100101 Firefox/144.0",
    };
  };
  /** An anti-detect browser's k-th profile: one Chrome build, its audio output and canvas drawn anew. */
  const noisyProfile = (k: number): Browser => {
    const seed = id("profile");
    const noise = fakeComponents(seed, {
      audio: 124.04347527516074 + (k + 1) * 1.3e-5 + seq * 1e-9,
      canvas: { winding: true, geometry: `data:image/png;base64,${seed}g`, text: `data:image/png;base64,${seed}t` },
    });
    return { components: noise, token: `tok-${seed}-xxxxxxxx`, ua: BROWSER_UA };
  };
  /** An iPhone's Safari: the same components as every iPhone of its model, with a visitor token of its own. */
  const phone = (): Browser => ({ components: iphoneComponents(), token: `tok-${id("phone")}-xxxxxxxx`, ua: IPHONE_UA });

  async function client(action: string, req: { user?: string; ip: string; browser: Browser }): Promise<Evaluation> {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "user-agent": req.browser.ua, "x-forwarded-for": req.ip },
      payload: {
        client_id: t.clientId,
        ...(req.user ? { user: req.user, ...(action === "signup" ? { email: `${req.user}@gmail.com` } : {}) } : {}),
        signals: { components: req.browser.components, visitor_token: req.browser.token, url: "https://app.example.com/" },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    expect(read.statusCode, read.body).toBe(200);
    return strict(Evaluation).parse(read.json());
  }
  const checks = (ev: Evaluation) => (ev.checks ?? {}) as Record<string, unknown>;
  const consume = async (ev: Evaluation) => {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluations/${ev.id}/consume`, headers: t.auth });
    expect(r.statusCode, r.body).toBe(200);
  };

  it("ten logins naming ten accounts from ten addresses of a datacenter's /64 are one IP: ip_user_count 10, velocity 10, Deny credential stuffing", async () => {
    const at = aws();
    let last: Evaluation | undefined;
    for (let k = 1; k <= 11; k++) last = await client("login", { user: id("leaked"), ip: at(1, k), browser: firefox() });
    expect(checks(last as Evaluation)).toMatchObject({ ip_is_hosting: true, ip_user_count: 11, ip_event_count: 11 });
    expect(last?.verdict, JSON.stringify([last?.policy?.name, last?.checks])).toBe("deny");
    expect(last?.policy?.name).toBe("Deny credential stuffing");
    // The API still shows the address the client came from, not its /64, and a search by it finds it alone.
    expect(last?.geolocation?.ip).toBe(at(1, 11));
    const found = await t.app.inject({ method: "GET", url: `/v3/evaluations?ip=${encodeURIComponent(at(1, 11))}`, headers: t.auth });
    expect(found.statusCode, found.body).toBe(200);
    expect((found.json() as { data: Array<{ id: string }> }).data.map((e) => e.id)).toEqual([last?.id]);

    // The next /64 of the /48: another IP, of the same network (its counts read the /48; this login counts itself).
    const next = await client("login", { user: id("leaked"), ip: at(2, 1), browser: firefox() });
    expect(checks(next)).toMatchObject({ ip_user_count: 1, ip_event_count: 1, network_provisional_attempts: 12 });
    expect(next.policy?.name).not.toBe("Deny credential stuffing");
  });

  it("logins on unconfirmed accounts and never-seen browsers from addresses of one home /64 count on its one IP; its next /64 counts apart", async () => {
    const at = home();
    for (let k = 1; k <= 3; k++) await client("login", { user: id("combo"), ip: at(1, k), browser: browser() });
    const fourth = await client("login", { user: id("combo"), ip: at(1, 4), browser: browser() });
    expect(checks(fourth)).toMatchObject({
      ip_provisional_attempts: 4,
      ip_provisional_attempts_day: 4,
      ip_new_fingerprints: 4,
      ip_new_fingerprints_day: 4,
      ip_event_count: 4,
    });
    const other = await client("login", { user: id("combo"), ip: at(2, 1), browser: browser() });
    expect(checks(other)).toMatchObject({
      ip_provisional_attempts: 1,
      ip_provisional_attempts_day: 1,
      ip_new_fingerprints: 1,
      ip_new_fingerprints_day: 1,
      network_provisional_attempts: 5,
      network_new_fingerprints: 5,
    });
  });

  it("an anti-detect browser's profiles signing up from two addresses of one /64 are noisy siblings on its IP; on the next /64, only on the network", async () => {
    const at = home();
    expect((await client("signup", { user: id("farmed"), ip: at(1, 1), browser: noisyProfile(0) })).verdict).toBe("allow");
    const second = await client("signup", { user: id("farmed"), ip: at(1, 2), browser: noisyProfile(1) });
    expect(checks(second)).toMatchObject({ ip_noisy_siblings_day: 1, network_noisy_siblings_day: 1 });
    const next = await client("signup", { user: id("farmed"), ip: at(2, 1), browser: noisyProfile(2) });
    expect(checks(next)).toMatchObject({ ip_noisy_siblings_day: 0, network_noisy_siblings_day: 2 });
  });

  it("a phone keeping its token for two sign-ups while its address rotates within its /64 reused it at one IP; the next /64 is another IP", async () => {
    const at = home();
    const mine = phone();
    await client("signup", { user: id("trial"), ip: at(1, 1), browser: mine });
    await client("signup", { user: id("trial"), ip: at(1, 2), browser: phone() });
    const third = await client("signup", { user: id("trial"), ip: at(1, 3), browser: mine });
    expect(checks(third)).toMatchObject({ fingerprint_ip_user_count: 3, fingerprint_ip_reused_tokens_day: 1 });
    const next = await client("signup", { user: id("trial"), ip: at(2, 1), browser: phone() });
    expect(checks(next)).toMatchObject({ fingerprint_ip_user_count: 1, fingerprint_ip_reused_tokens_day: 0 });
  });

  it("is_new_ip: an account let in at one address of its /64 is not at a new IP on another address of it; its next /64 is a new IP on a known network", async () => {
    const at = home();
    const user = id("owner");
    const b = browser();
    const first = await client("login", { user, ip: at(1, 1), browser: b });
    await consume(first);
    const rotated = await client("login", { user, ip: at(1, 2), browser: b });
    expect(checks(rotated)).toMatchObject({ is_new_ip: false, is_new_network: false });
    const next = await client("login", { user, ip: at(2, 1), browser: b });
    expect(checks(next)).toMatchObject({ is_new_ip: true, is_new_network: false });
  });
});

describe("migration 37's per-IP key", () => {
  it("is the live perIpKey's for every form of address it meets", () => {
    const forms = [
      "203.0.113.7",
      "::ffff:203.0.113.7",
      "::ffff:cb00:7107",
      "2001:db8:1:2::1",
      "2001:0db8:0001:0002:abcd::9",
      "2001:DB8:1:2:0:0:0:0",
      "2001:db8::1",
      "::1",
      "::",
      "fe80::1%eth0",
      "2a02:c7f:7a01:1:1001:1eef::1",
      "64:ff9b::192.0.2.33",
      "unknown",
    ];
    for (const ip of forms) expect(m37.perIpKey(ip), ip).toBe(perIpKey(ip));
    expect(m37.perIpKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
  });
});

describeStores("migration 37 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store;
  const ENV = "env_m37";
  const at = 1_700_000_000_000;

  beforeAll(async () => {
    // The store as it was before migration 37, holding rows written then.
    const before = await storeBefore(kind, m37);
    ({ database, store } = before);
    const row = (id: string, ip: string | null) => ({
      id,
      environment_id: ENV,
      action: "login",
      verdict: "allow",
      reasons: "[]",
      user_id: "usr_a",
      ip,
      consumed: 1,
      confirmed: 1,
      created_at: at,
      updated_at: at,
    });
    await before.db
      .insertInto("evaluations")
      .values([
        row("ev_v4", "198.51.100.7"),
        row("ev_v6a", "2001:db8:1:2::a"),
        row("ev_v6b", "2001:DB8:1:2:0:0:0:b"),
        row("ev_v6c", "2001:db8:1:3::a"),
        row("ev_mapped", "::ffff:198.51.100.8"),
        row("ev_none", null),
      ])
      .execute();
    await before.db
      .insertInto("login_attempts")
      .values([
        { id: "lat_1", environment_id: ENV, user_id: "usr_p", ip: "2001:db8:1:2::a", network: "2001:db8:1::/48", created_at: at },
        { id: "lat_2", environment_id: ENV, user_id: "usr_p", ip: "198.51.100.7", network: "198.51.100.0/24", created_at: at },
      ])
      .execute();
    const seen = (value: string, first: number, last: number) => ({
      environment_id: ENV,
      user_id: "usr_a",
      dimension: "ip",
      value,
      first_seen: at + first,
      last_seen: at + last,
    });
    await before.db
      .insertInto("familiarity")
      .values([seen("2001:db8:1:2::a", 5, 9), seen("2001:db8:1:2::b", 1, 3), seen("2001:db8:1:2::/64", 4, 6), seen("198.51.100.7", 0, 0)])
      .execute();
    await m37.up(store.db as unknown as Kysely<unknown>);
  });

  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("keys every stored evaluation by its IPv4 address or IPv6 /64, and keeps the address it came from", async () => {
    const rows = await store.db
      .selectFrom("evaluations")
      .select(["id", "ip", "ip_key"])
      .where("environment_id", "=", ENV)
      .orderBy("id")
      .execute();
    expect(rows.map((r) => `${r.id} ${r.ip} ${r.ip_key}`)).toEqual([
      "ev_mapped ::ffff:198.51.100.8 198.51.100.8",
      "ev_none null null",
      "ev_v4 198.51.100.7 198.51.100.7",
      "ev_v6a 2001:db8:1:2::a 2001:db8:1:2::/64",
      "ev_v6b 2001:DB8:1:2:0:0:0:b 2001:db8:1:2::/64",
      "ev_v6c 2001:db8:1:3::a 2001:db8:1:3::/64",
    ]);
  });

  it("rewrites stored login attempts and the ledger's addresses to their keys, one ledger row per /64", async () => {
    const attempts = await store.db
      .selectFrom("login_attempts")
      .select(["id", "ip"])
      .where("environment_id", "=", ENV)
      .orderBy("id")
      .execute();
    expect(attempts.map((r) => `${r.id} ${r.ip}`)).toEqual(["lat_1 2001:db8:1:2::/64", "lat_2 198.51.100.7"]);
    const ledger = await store.db
      .selectFrom("familiarity")
      .select(["value", "first_seen", "last_seen"])
      .where("environment_id", "=", ENV)
      .where("dimension", "=", "ip")
      .orderBy("value")
      .execute();
    expect(ledger.map((r) => `${r.value} ${Number(r.first_seen) - at}..${Number(r.last_seen) - at}`)).toEqual([
      "198.51.100.7 0..0",
      "2001:db8:1:2::/64 1..9",
    ]);
  });
});
