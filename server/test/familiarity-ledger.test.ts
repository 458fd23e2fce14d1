// The familiarity ledger (store/familiarity.ts, migration 30), through the real app on both stores: what a user was let
// in with enters it when an evaluation becomes trusted, at each of the three places that confirm one (its insert with a
// signed user id, the backend's consume, a passed challenge), and never from an evaluation nobody vouched for; erasing
// the user deletes it, and retention deletes a value with the last trusted evaluation that vouched for it. Migration 30
// fills it from the columns it replaces, and fills what pending evaluations will record once confirmed.
import { Evaluation } from "@tessera/sdk/contract";
import { userToken } from "@tessera/sdk/node";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Store } from "../src/store/db.js";
import { EvaluationsRepo } from "../src/store/evaluations.js";
import * as m30 from "../src/store/migrations/30-familiarity.js";
import { Transactions } from "../src/store/transactions.js";
import { describeStores, fakeComponents, startTestApp, storeBefore, type TestApp, type TestDatabase } from "./helpers.js";
import { ledgerOf } from "./ledger.js";
import { strict } from "./strict.js";

const DAY = 24 * 3600 * 1000;

describeStores("the familiarity ledger on %s", (kind) => {
  let t: TestApp;
  let seq = 0;
  const id = (p: string) => `${p}-${kind}-${++seq}`;
  /** A private address of its own: no other case's counts or networks. */
  const ip = () => `10.${kind === "sqlite" ? 61 : 62}.${++seq}.7`;

  beforeAll(async () => {
    // No SMTP_URL: codes go to the development outbox. A policy that challenges one action of its own, always.
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000" });
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Always verify (test)",
        actions: ["verify_me"],
        priority: 1000,
        conditions: { all: [] },
        verdict: "challenge",
        challenge: { type: "account_takeover", channels: ["email"] },
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
  });
  afterAll(async () => t?.close());

  /** A client evaluation from a browser of its own set to `zone` and `language`, read back. */
  async function visit(
    action: string,
    user: string,
    o: { zone: string; language?: string; ip?: string; user_token?: string; email?: string },
  ): Promise<Evaluation> {
    const seed = id("browser");
    const components = fakeComponents(seed, o.language ? { languages: [[o.language], [o.language]] } : {});
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": o.ip ?? ip() },
      payload: {
        client_id: t.clientId,
        user,
        ...(o.user_token ? { user_token: o.user_token } : {}),
        ...(o.email ? { email: o.email } : {}),
        signals: { components, visitor_token: `tok-${seed}-xxxxxxxx`, timezone: o.zone },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({
      method: "GET",
      url: `/v3/evaluations/${(r.json() as { evaluation_id: string }).evaluation_id}`,
      headers: t.auth,
    });
    return strict(Evaluation).parse(read.json());
  }

  const consume = async (ev: Evaluation) => {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluations/${ev.id}/consume`, headers: t.auth });
    expect(r.statusCode, r.body).toBe(200);
  };

  /** The user's ledger as stored: `dimension=value` each. */
  async function ledger(ev: Evaluation): Promise<string[]> {
    const user = ev.user?.service_id ?? "";
    const rows = await t.services.repos.db.selectFrom("familiarity").select(["dimension", "value"]).where("user_id", "=", user).execute();
    return rows.map((r) => `${r.dimension}=${r.value}`).sort();
  }

  /** is_new_timezone of a new browser of the user set to `zone`. */
  const newZone = async (user: string, zone: string) => (await visit("visit", user, { zone })).checks?.is_new_timezone;

  it("a login the backend consumed makes its zone and language familiar; one let in but never consumed does not", async () => {
    const [owner, stranger] = [id("u"), id("u")];
    // Both let in (a first login); only the owner's is consumed (the password was right).
    const own = await visit("login", owner, { zone: "Asia/Tokyo", language: "ja-JP" });
    const attempt = await visit("login", stranger, { zone: "Asia/Tokyo", language: "ja-JP" });
    expect([own.verdict, attempt.verdict]).toEqual(["allow", "allow"]);
    await consume(own);
    expect(await ledger(own)).toEqual(expect.arrayContaining(["language=ja-JP", "timezone=Asia/Tokyo"]));
    expect(await ledger(attempt)).toEqual([]);
    expect(await newZone(owner, "Asia/Tokyo")).toBe(false);
    expect(await newZone(owner, "Europe/Paris")).toBe(true);
    // Nothing vouched for the stranger's login: no zone on record at all.
    expect(await newZone(stranger, "Asia/Tokyo")).toBeNull();
  });

  it("a browser with the user id the backend signed is the user's at its insert; the same id unsigned is not", async () => {
    const [signed, unsigned] = [id("u"), id("u")];
    const secret = (await t.services.identity.rotate(t.project.id, "development")) as string;
    const ev = await visit("visit", signed, { zone: "America/Sao_Paulo", user_token: await userToken(secret, signed) });
    const plain = await visit("visit", unsigned, { zone: "America/Sao_Paulo" });
    expect(ev.checks?.identity_verified).toBe(true);
    expect(await ledger(ev)).toContain("timezone=America/Sao_Paulo");
    expect(await ledger(plain)).toEqual([]);
    expect(await newZone(signed, "America/Sao_Paulo")).toBe(false);
  });

  it("a challenge the user passed makes its evaluation's zone familiar; one nobody passed does not", async () => {
    const [passed, pending] = [id("u"), id("u")];
    const challenged = await visit("verify_me", passed, { zone: "Australia/Sydney", email: `${passed}@example.com` });
    const unanswered = await visit("verify_me", pending, { zone: "Australia/Sydney", email: `${pending}@example.com` });
    expect(challenged.verdict).toBe("challenge");
    const challenge = challenged.challenge?.id;
    expect(
      (await t.app.inject({ method: "POST", url: `/v3/challenges/${challenge}/send`, headers: t.auth, payload: { channel: "email" } }))
        .statusCode,
    ).toBe(200);
    const outbox = await t.app.inject({ method: "GET", url: "/v3/dev/outbox", headers: t.auth });
    const message = (outbox.json() as { data: { challenge_id: string; body: string }[] }).data.find((m) => m.challenge_id === challenge);
    const code = /\b(\d{6})\b/.exec(message?.body ?? "")?.[1];
    const verified = await t.app.inject({ method: "POST", url: `/v3/challenges/${challenge}/verify`, headers: t.auth, payload: { code } });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await ledger(challenged)).toContain("timezone=Australia/Sydney");
    expect(await ledger(unanswered)).toEqual([]);
    expect(await newZone(passed, "Australia/Sydney")).toBe(false);
  });

  it("erasing the user deletes what they were let in with: the same id named again has nothing on record", async () => {
    const user = id("u");
    const own = await visit("login", user, { zone: "Europe/Madrid" });
    await consume(own);
    expect(await ledger(own)).toContain("timezone=Europe/Madrid");
    const erased = await t.app.inject({ method: "DELETE", url: `/v3/user/${user}`, headers: t.auth });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(await ledger(own)).toEqual([]);
    expect(await newZone(user, "Europe/Madrid")).toBeNull();
  });

  it("retention deletes a value with the last trusted evaluation that vouched for it, and keeps one vouched for since", async () => {
    const user = id("u");
    const home = ip();
    // 100 days ago: let in set to Lisbon and to Berlin; today: set to Berlin again. Retention keeps 90 days.
    const real = Date.now.bind(Date);
    const clock = vi.spyOn(Date, "now").mockImplementation(() => real() - 100 * DAY);
    try {
      await consume(await visit("login", user, { zone: "Europe/Lisbon", ip: home }));
      await consume(await visit("login", user, { zone: "Europe/Berlin", ip: home }));
    } finally {
      clock.mockRestore();
    }
    const today = await visit("login", user, { zone: "Europe/Berlin", ip: home });
    await consume(today);
    expect(await ledger(today)).toEqual(expect.arrayContaining(["timezone=Europe/Berlin", "timezone=Europe/Lisbon"]));
    await t.services.privacy.prune(90);
    const after = await ledger(today);
    expect(after).toContain("timezone=Europe/Berlin");
    expect(after).not.toContain("timezone=Europe/Lisbon");
    expect(await newZone(user, "Europe/Lisbon")).toBe(true);
    expect(await newZone(user, "Europe/Berlin")).toBe(false);
  });
});

describeStores("migration 30 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store;
  const ENV = "env_m30";
  const at = 1_700_000_000_000;

  beforeAll(async () => {
    // The store as it was before migration 30, holding rows written then.
    const before = await storeBefore(kind, m30);
    ({ database, store } = before);
    const row = (id: string, user: string, o: Record<string, unknown>) => ({
      id,
      environment_id: ENV,
      action: "login",
      verdict: "allow",
      reasons: "[]",
      user_id: user,
      ip: "198.51.100.7",
      network: "198.51.100.0/24",
      consumed: 1,
      confirmed: 1,
      created_at: at,
      updated_at: at,
      ...o,
    });
    await before.db
      .insertInto("evaluations")
      .values([
        // usr_a, let in at home (an ISP's ASN, an ordinary network in GB), then through a VPN exit in NL.
        row("ev_home", "usr_a", { asn: 20712, somewhere: 1, country_code: "GB", timezone: "Europe/London", language: "en-GB" }),
        row("ev_vpn", "usr_a", { provider_asn: 60068, somewhere: 0, country_code: "NL", created_at: at + 1, updated_at: at + 1 }),
        // A stranger's attempt on usr_a, let in but never confirmed: nothing of it is usr_a's.
        row("ev_stranger", "usr_a", {
          consumed: 0,
          confirmed: 0,
          ip: "203.0.113.9",
          network: "203.0.113.0/24",
          somewhere: 1,
          country_code: "DE",
          timezone: "Europe/Berlin",
          language: "de-DE",
          created_at: at + 2,
          updated_at: at + 2,
        }),
        // A denial the backend consumed: never confirmed, never confirmable by a consume.
        row("ev_denied", "usr_a", { verdict: "deny", confirmed: 0, somewhere: 1, country_code: "IT", timezone: "Europe/Rome" }),
      ])
      .execute();
    await m30.up(store.db as unknown as Kysely<unknown>);
  });

  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("fills the ledger from the trusted evaluations' columns, as the familiarity checks read them", async () => {
    const rows = await store.db.selectFrom("familiarity").selectAll().where("environment_id", "=", ENV).execute();
    expect(
      rows.map((r) => `${r.user_id} ${r.dimension}=${r.value} ${Number(r.first_seen) - at}..${Number(r.last_seen) - at}`).sort(),
    ).toEqual(
      [
        "usr_a country=GB 0..0",
        "usr_a ip=198.51.100.7 0..1",
        "usr_a language=en-GB 0..0",
        "usr_a network=198.51.100.0/24 0..1",
        "usr_a network_asn=20712 0..0",
        "usr_a provider_asn=60068 1..1",
        "usr_a timezone=Europe/London 0..0",
      ].sort(),
    );
    const ledger = ledgerOf(store);
    expect(await ledger.country(ENV, "usr_a", "GB")).toEqual({ seen: true, any: true });
    expect(await ledger.country(ENV, "usr_a", "NL")).toEqual({ seen: false, any: true });
    expect(await ledger.provider(ENV, "usr_a", 60068)).toBe(true);
    expect(await ledger.provider(ENV, "usr_a", 20712)).toBe(true);
  });

  it("gives an evaluation that may still be confirmed the values it will record, and records them when consumed", async () => {
    const familiar = await store.db.selectFrom("evaluations").select(["id", "familiar"]).where("environment_id", "=", ENV).execute();
    const byId = Object.fromEntries(familiar.map((r) => [r.id, r.familiar ? (JSON.parse(r.familiar) as Record<string, unknown>) : null]));
    // Confirmed already, or a consumed denial: nothing left to record.
    expect([byId.ev_home, byId.ev_vpn, byId.ev_denied]).toEqual([null, null, null]);
    expect(byId.ev_stranger).toMatchObject({ ip: "203.0.113.9", country: "DE", timezone: "Europe/Berlin", language: "de-DE" });
    // The backend consumes it after the upgrade (the password was right after all): its values are the user's now.
    const consumed = await new EvaluationsRepo(new Transactions(store.db)).consume(ENV, "ev_stranger");
    expect(consumed.ok).toBe(true);
    const rows = await store.db.selectFrom("familiarity").select(["dimension", "value"]).where("user_id", "=", "usr_a").execute();
    expect(rows.map((r) => `${r.dimension}=${r.value}`)).toEqual(
      expect.arrayContaining(["country=DE", "timezone=Europe/Berlin", "language=de-DE", "ip=203.0.113.9"]),
    );
  });
});
