// Privacy (docs/storage.md): DELETE /v3/user/:id erases the user's data and answers the counts; retention prunes old records.
import { UserErasure } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describeStores("privacy on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
  });
  afterAll(async () => t?.close());

  const evaluate = (user: string, seed: string, action = "access") =>
    t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      payload: { client_id: t.clientId, user, signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` } },
    });

  it("erasure removes evaluations, devices, fingerprints only this user had, access records; other users keep theirs", async () => {
    const mine = (await evaluate("gone", "g1")).json().evaluation_id;
    await evaluate("gone", "g2");
    await evaluate("gone", "shared");
    await evaluate("stays", "shared");
    const theirs = (await evaluate("stays", "s1")).json().evaluation_id;
    // Each signs in on a browser of their own (the backend consumes): those devices are theirs in trusted history.
    for (const id of [mine, theirs])
      expect((await t.app.inject({ method: "POST", url: `/v3/evaluations/${id}/consume`, headers: t.auth })).statusCode).toBe(200);
    const signedIn = () => t.services.repos.db.selectFrom("device_confirmations").select("device_id").execute();
    expect(await signedIn()).toHaveLength(2);

    let counted = 0;
    t.services.privacy.erasers.push(async (ctx) => {
      expect(ctx.externalId).toBe("gone");
      expect(ctx.deviceIds.length).toBeGreaterThan(0);
      counted++;
      return { challenges: 2 };
    });
    const r = await t.app.inject({ method: "DELETE", url: "/v3/user/gone", headers: t.auth });
    t.services.privacy.erasers.pop();
    expect(r.statusCode).toBe(200);
    const body = strict(UserErasure).parse(r.json());
    expect(body.user).toBe("gone");
    expect(body.deleted.evaluations).toBe(3);
    // Pages opened naming an account put no device on its list; the browser "gone" signed in on is its own, and the one
    // only its pages named went with it. The browser both accounts opened pages on is nobody's, and "stays" named it:
    // it stays.
    expect(body.deleted.devices).toBe(2);
    expect(body.deleted.access_records).toBe(3);
    // The "shared" fingerprint is also the other user's: it stays.
    expect(body.deleted.fingerprints).toBe(2);
    expect(body.deleted.challenges).toBe(2);
    expect(counted).toBe(1);

    expect((await t.app.inject({ method: "GET", url: `/v3/evaluations/${mine}`, headers: t.auth })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/v3/user/gone/devices", headers: t.auth })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "DELETE", url: "/v3/user/gone", headers: t.auth })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: `/v3/evaluations/${theirs}`, headers: t.auth })).statusCode).toBe(200);
    // The device "gone" signed in on is forgotten; the other user's stays.
    expect(await signedIn()).toHaveLength(1);
    const history = await t.app.inject({ method: "GET", url: "/v2/proj/access-history?user=stays", headers: t.auth });
    expect(history.json().totalDocs).toBe(2);
  });

  it("another project's secret cannot erase the user", async () => {
    await evaluate("kept", "k1");
    const r = await t.app.inject({ method: "DELETE", url: "/v3/user/kept", headers: { authorization: `Bearer ${t.otherSecret}` } });
    expect(r.statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/v3/user/kept/devices", headers: t.auth })).statusCode).toBe(200);
  });

  it("retention prunes evaluations and access records older than RETENTION_DAYS and keeps newer ones", async () => {
    const old = (await evaluate("ret", "r1")).json().evaluation_id;
    const recent = (await evaluate("ret", "r2")).json().evaluation_id;
    const days = t.services.config.RETENTION_DAYS;
    expect(days).toBe(90);
    // Seen from 90 days and one hour after `old`, `old` is out of retention; `recent` is simulated 2 hours newer.
    const oldRow = await t.services.evaluationsService.get(t.project.environments.development.id, old);
    const at = Date.parse(oldRow?.createdAt ?? "") + days * 86_400_000 + 1;
    const recentAt = Date.parse((await t.services.evaluationsService.get(t.project.environments.development.id, recent))?.createdAt ?? "");
    const pruned = await t.services.privacy.prune(days, at);
    expect(pruned.evaluations).toBeGreaterThanOrEqual(1);
    expect(pruned.access_records).toBeGreaterThanOrEqual(1);
    expect((await t.app.inject({ method: "GET", url: `/v3/evaluations/${old}`, headers: t.auth })).statusCode).toBe(404);
    if (recentAt > Date.parse(oldRow?.createdAt ?? "")) {
      expect((await t.app.inject({ method: "GET", url: `/v3/evaluations/${recent}`, headers: t.auth })).statusCode).toBe(200);
    }
  });
});
