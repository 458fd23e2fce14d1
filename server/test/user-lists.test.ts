// The users and devices lists of an evaluation (store/user-lists.ts): asked together they are sent as one statement on
// PostgreSQL, and answer exactly what each read sent alone answers — on both stores, with the lists' caps reached.

import { CompiledQuery } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Transactions } from "../src/store/transactions.js";
import { UserLists } from "../src/store/user-lists.js";
import { BROWSER_UA, describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { pgStatementsDuring, sqliteStatementsDuring } from "./statement-hook.js";

const IP = "203.0.113.40";

describeStores("the users and devices lists on %s", (kind) => {
  let t: TestApp;
  let env: string;
  let lists: UserLists;
  let user: string;
  let fingerprint: { id: string; exact_hash: string };

  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000" });
    env = t.project.environments.development.id;
    const login = (u: string, seed: string, ip = IP) =>
      t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        headers: { "user-agent": BROWSER_UA, "x-forwarded-for": ip },
        payload: { client_id: t.clientId, user: u, signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` } },
      });
    // Three accounts on one browser and one address, one of them on two more browsers; each login let in.
    for (const [u, seed] of [
      ["ul-a", "ul-shared"],
      ["ul-b", "ul-shared"],
      ["ul-c", "ul-shared"],
      ["ul-a", "ul-second"],
      ["ul-a", "ul-third"],
    ] as const) {
      const r = await login(u, seed);
      expect(r.statusCode).toBe(200);
      const { evaluation_id } = r.json() as { evaluation_id: string };
      await t.app.inject({ method: "POST", url: `/v3/evaluations/${evaluation_id}/consume`, headers: t.auth });
    }
    const repos = t.services.repos;
    user = (await repos.db.selectFrom("users").select("id").where("external_id", "=", "ul-a").executeTakeFirstOrThrow()).id;
    fingerprint = await repos.db
      .selectFrom("evaluations")
      .innerJoin("fingerprints", "fingerprints.id", "evaluations.fingerprint_id")
      .select(["fingerprints.id", "fingerprints.exact_hash"])
      .where(
        "evaluations.user_id",
        "=",
        (await repos.db.selectFrom("users").select("id").where("external_id", "=", "ul-b").executeTakeFirstOrThrow()).id,
      )
      .executeTakeFirstOrThrow();
    lists = new UserLists(new Transactions(repos.db), kind);
  });
  afterAll(async () => t?.close());

  const together = (cap: number) =>
    Promise.all([
      lists.ipUsers(env, IP, 0, cap),
      lists.userDevices(env, user, cap),
      lists.fingerprintUsers(env, fingerprint.id, 0, 0, cap),
      lists.confirmedUsersAtIp(env, fingerprint.exact_hash, IP, 0, cap),
    ]);
  const alone = async (cap: number) => [
    await lists.ipUsers(env, IP, 0, cap),
    await lists.userDevices(env, user, cap),
    await lists.fingerprintUsers(env, fingerprint.id, 0, 0, cap),
    await lists.confirmedUsersAtIp(env, fingerprint.exact_hash, IP, 0, cap),
  ];
  const sorted = ([ip, devices, fp, atIp]: Awaited<ReturnType<typeof together>>) => [
    [...ip].sort(),
    devices,
    { confirmed: [...fp.confirmed].sort(), triedSince: [...fp.triedSince].sort() },
    [...atIp].sort(),
  ];

  it("answers together what each read answers alone", async () => {
    // Statements sent to PostgreSQL meanwhile: the four reads go as one.
    const { sent, result: joined } = await pgStatementsDuring(() => together(200));
    expect(sent).toHaveLength(kind === "postgres" ? 1 : 0);
    expect(joined[0]).toHaveLength(3);
    expect(joined[1]).toHaveLength(3);
    expect(joined[2].confirmed).toHaveLength(3);
    expect(joined[3]).toHaveLength(3);
    expect(sorted(joined)).toEqual(sorted((await alone(200)) as Awaited<ReturnType<typeof together>>));
    // The user's devices, most recently seen first.
    const seen = joined[1].map((d) => d.last_seen_at ?? 0);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
  });

  it("keeps each read's cap, and the user's most recently seen devices past it", async () => {
    const joined = await together(2);
    expect(joined[0]).toHaveLength(2);
    expect(joined[2].confirmed.length + joined[2].triedSince.length).toBeGreaterThan(0);
    expect(joined[3]).toHaveLength(2);
    const all = await lists.userDevices(env, user, 200);
    expect(joined[1].map((d) => d.id)).toEqual(all.slice(0, 2).map((d) => d.id));
    expect(sorted(joined)).toEqual(sorted((await alone(2)) as Awaited<ReturnType<typeof together>>));
  });

  it.runIf(kind === "sqlite")("reads the users of an IP from the evaluations' index alone (no table row per evaluation)", async () => {
    const { ran } = await sqliteStatementsDuring(async () => {
      await lists.ipUsers(env, IP, 0, 200);
      await lists.confirmedUsersAtIp(env, fingerprint.exact_hash, IP, 0, 200);
    });
    expect(ran).toHaveLength(2);
    for (const text of ran) {
      // The statement as it ran, a value bound to each placeholder (the plan does not depend on them).
      const values = Array.from(text.matchAll(/\?/g), () => 1);
      const plan = await t.services.repos.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${text}`, values));
      const read = plan.rows.map((r) => r.detail).filter((d) => d.includes("evaluations"));
      expect(read).toEqual([expect.stringContaining("USING COVERING INDEX evaluations_env_ip_key_time_users")]);
    }
  });
});
