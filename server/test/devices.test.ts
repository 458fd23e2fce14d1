// Devices (docs/client-api.md, docs/server-api.md): a user's devices, detach → the SDK logs out, metadata, and the client device operations.
import {
  ClientDeviceResponse,
  Device,
  DeviceList,
  ErrorBody,
  FingerprintResponse,
  HashResponse,
  IdentifyResponse,
} from "@tessera/sdk/contract";
import { userToken } from "@tessera/sdk/node";
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { sqliteStatementsDuring } from "./statement-hook.js";
import { strict } from "./strict.js";

describeStores("devices on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
  });
  afterAll(async () => t?.close());

  const client = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.app.inject({ method: "POST", url, payload: { client_id: t.clientId, ...body }, headers });
  const login = async (user: string, seed: string) => {
    const r = await client("/v3/client/evaluate/login", {
      user,
      signals: { components: fakeComponents(seed), visitor_token: `tok-${seed}-xxxxxxxx` },
    });
    const out = r.json() as { evaluation_id: string; logout?: boolean };
    // The backend confirms the login it let in, as a real one does: these accounts are no guesses (docs/identity.md), so the
    // cases' browsers, all on one address, never look like one browser farm cycling through accounts.
    const ev = await t.app.inject({ method: "GET", url: `/v3/evaluations/${out.evaluation_id}`, headers: t.auth });
    if (ev.json().verdict === "allow") {
      const consumed = await t.app.inject({ method: "POST", url: `/v3/evaluations/${out.evaluation_id}/consume`, headers: t.auth });
      expect(consumed.statusCode, consumed.body).toBe(200);
    }
    return out;
  };

  it("GET /v3/user/:id/devices lists the user's devices as device objects", async () => {
    await login("dl_user", "dl1");
    await login("dl_user", "dl2");
    const r = await t.app.inject({ method: "GET", url: "/v3/user/dl_user/devices", headers: { ...t.auth, "user-agent": "x" } });
    expect(r.statusCode).toBe(200);
    const list = strict(DeviceList).parse(r.json());
    expect(list).toHaveLength(2);
    for (const d of list) {
      expect(d.id).toMatch(/^dev_/);
      expect(d.user).toBe("dl_user");
      expect(d.status).toBe("attached");
      expect(d.actively_connected).toBe(true);
      expect(d.createdAt).toMatch(/Z$/);
    }
    expect((await t.app.inject({ method: "GET", url: "/v3/user/nobody/devices", headers: t.auth })).statusCode).toBe(404);
    const other = await t.app.inject({
      method: "GET",
      url: "/v3/user/dl_user/devices",
      headers: { authorization: `Bearer ${t.otherSecret}` },
    });
    expect(other.statusCode).toBe(404);
  });

  it("detach marks the device detached and its next client evaluation answers logout: true once", async () => {
    await login("det_user", "det");
    const [device] = strict(DeviceList).parse(
      (await t.app.inject({ method: "GET", url: "/v3/user/det_user/devices", headers: t.auth })).json(),
    );
    const r = await t.app.inject({ method: "POST", url: `/v3/devices/${device?.id}/detach`, headers: t.auth });
    expect(r.statusCode).toBe(200);
    const d = strict(Device).parse(r.json());
    expect(d.status).toBe("detached");
    expect(d.detached_at).toMatch(/Z$/);
    expect((await login("det_user", "det")).logout).toBe(true);
    expect((await login("det_user", "det")).logout).toBeUndefined();
    expect((await t.app.inject({ method: "POST", url: "/v3/devices/dev_nope/detach", headers: t.auth })).statusCode).toBe(404);
  });

  it("metadata replaces the device's metadata; a non-object is 400 naming metadata", async () => {
    await login("md_user", "md");
    const [device] = strict(DeviceList).parse(
      (await t.app.inject({ method: "GET", url: "/v3/user/md_user/devices", headers: t.auth })).json(),
    );
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/devices/${device?.id}/metadata`,
      headers: t.auth,
      payload: { metadata: { label: "work laptop" } },
    });
    expect(r.statusCode).toBe(200);
    expect(strict(Device).parse(r.json()).metadata).toEqual({ label: "work laptop" });
    const bad = await t.app.inject({
      method: "POST",
      url: `/v3/devices/${device?.id}/metadata`,
      headers: t.auth,
      payload: { metadata: "x" },
    });
    expect(bad.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(bad.json()).error.param).toBe("metadata");
  });

  it("client attach and detach act on this browser's device", async () => {
    const signals = { components: fakeComponents("cad"), visitor_token: "tok-cad-xxxxxxxx" };
    const noUser = await client("/v3/client/devices/attach", { signals });
    expect(noUser.statusCode).toBe(400);
    expect(noUser.json().error.param).toBe("user");
    // Attach needs the backend's signature of the user (trust-boundary.test.ts has the refusals; docs/security.md).
    const secret = (await t.services.identity.rotate(t.project.id, "development")) as string;
    const user_token = await userToken(secret, "cad_user");
    const a = strict(ClientDeviceResponse).parse(
      (await client("/v3/client/devices/attach", { user: "cad_user", user_token, signals })).json(),
    );
    expect(a.status).toBe("attached");
    const list = strict(DeviceList).parse(
      (await t.app.inject({ method: "GET", url: "/v3/user/cad_user/devices", headers: t.auth })).json(),
    );
    expect(list.map((d) => d.id)).toEqual([a.device]);
    const d = strict(ClientDeviceResponse).parse((await client("/v3/client/devices/detach", { user: "cad_user", signals })).json());
    expect(d).toEqual({ device: a.device, status: "detached" });
    const after = strict(DeviceList).parse(
      (await t.app.inject({ method: "GET", url: "/v3/user/cad_user/devices", headers: t.auth })).json(),
    );
    expect(after[0]?.status).toBe("detached");
  });

  it("client fingerprint is stable for the same components; hash answers [current, last]", async () => {
    const signals = { components: fakeComponents("fph"), visitor_token: "tok-fph-xxxxxxxx" };
    const f1 = strict(FingerprintResponse).parse((await client("/v3/client/fingerprint", { signals })).json());
    const f2 = strict(FingerprintResponse).parse((await client("/v3/client/fingerprint", { signals })).json());
    expect(f1.fingerprint_id).toMatch(/^fp_/);
    expect(f2).toEqual({ fingerprint_id: f1.fingerprint_id, confidence: 1 });
    const [current, last] = strict(HashResponse).parse((await client("/v3/client/hash", { signals })).json());
    expect(current).toMatch(/^[0-9a-f]{16,}$/);
    expect(last).toBe(current);
    const drifted = { ...signals, components: fakeComponents("fph", { screenResolution: [2560, 1440] }) };
    const [cur2, last2] = strict(HashResponse).parse((await client("/v3/client/hash", { signals: drifted })).json());
    expect(last2).toBe(current);
    expect(cur2).not.toBe(current);
  });

  it("looks a token up among the devices' previous and recognised tokens through their partial indexes (migration 36)", async () => {
    // A new browser's device has neither token: the indexes hold only the devices that have one.
    for (const name of ["devices_env_previous_token", "devices_env_recognised_token"]) {
      const def =
        kind === "sqlite"
          ? await sql<{ def: string }>`select sql as def from sqlite_master where name = ${name}`.execute(t.services.repos.db)
          : await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = ${name}`.execute(t.services.repos.db);
      expect(def.rows[0]?.def.toLowerCase()).toMatch(/where .*is not null/);
    }
    const texts =
      kind === "sqlite"
        ? (await sqliteStatementsDuring(() => login("partial-token-user", "partial-token"))).ran.filter((x) =>
            /"(previous|recognised)_token" = \?/.test(x),
          )
        : [
            'select * from "devices" where "environment_id" = $1 and "previous_token" = $2',
            'select * from "devices" where "environment_id" = $1 and "recognised_token" = $2',
          ];
    expect(texts.length).toBeGreaterThan(0);
    const plans: string[] = [];
    await t.services.repos.db.connection().execute(async (c) => {
      // PostgreSQL: a table this small is read whole; asked not to, it shows which index it can use.
      if (kind === "postgres") await sql`set enable_seqscan = off`.execute(c);
      for (const text of texts) {
        const values = Array.from(text.matchAll(/\?|\$\d+/g), () => "x");
        const plan = await c.executeQuery<Record<string, string>>(
          CompiledQuery.raw(`explain ${kind === "sqlite" ? "query plan " : ""}${text}`, values),
        );
        plans.push(plan.rows.map((r) => Object.values(r).join(" ")).join(" | "));
      }
      if (kind === "postgres") await sql`reset enable_seqscan`.execute(c);
    });
    const joined = plans.join("\n");
    expect(joined).toContain("devices_env_previous_token");
    expect(joined).toContain("devices_env_recognised_token");
    expect(joined).not.toMatch(/SCAN devices(?! USING)|Seq Scan/);
  });

  it("client identify answers an identification id; a refused origin is 403 and an unknown client id 401", async () => {
    const r = await client("/v3/client/identify", { signals: { components: fakeComponents("idf") } });
    expect(strict(IdentifyResponse).parse(r.json()).identification_id).toMatch(/^idn_/);
    const evil = await client("/v3/client/fingerprint", {}, { origin: "https://evil.example" });
    expect(evil.statusCode).toBe(403);
    const ok = await client("/v3/client/fingerprint", {}, { origin: "http://localhost:3000" });
    expect(ok.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    const unknown = await t.app.inject({ method: "POST", url: "/v3/client/fingerprint", payload: { client_id: "pk_test_nope" } });
    expect(unknown.statusCode).toBe(401);
  });
});

describeStores("one browser behind many accounts on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
    // Every login is let in: one browser signing in to twenty accounts is what the default login rules challenge
    // (accounts cycled through one browser), and a challenged login is not consumed, so its user stays provisional.
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: { name: "Let every login in (test)", actions: ["login"], priority: 1000, conditions: { all: [] }, verdict: "allow" },
    });
    expect(policy.statusCode, policy.body).toBe(201);
  });
  afterAll(async () => t?.close());

  const login = async (user: string) => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user, signals: { components: fakeComponents("shared"), visitor_token: "tok-shared-browser-01" } },
    });
    expect(r.statusCode).toBe(200);
    const id = (r.json() as { evaluation_id: string }).evaluation_id;
    // The backend consumes the evaluation of a login it let in: the user is an account, no longer provisional.
    expect((await t.app.inject({ method: "POST", url: `/v3/evaluations/${id}/consume`, headers: t.auth })).statusCode).toBe(200);
    return (await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth })).json() as {
      verdict: string;
      device?: string;
      checks: Record<string, unknown>;
    };
  };

  // The identity step reads a token's devices once, at most 16 (TOKEN_DEVICES): past that, it must read again.
  it("keeps each account's own device and counts every account, past the devices read at once per token", async () => {
    const first = new Map<string, string | undefined>();
    for (let i = 0; i < 20; i++) {
      const ev = await login(`many_${i}`);
      first.set(`many_${i}`, ev.device);
    }
    const devices = new Set(first.values());
    expect(devices.size).toBe(20);
    for (const user of ["many_0", "many_3", "many_19"]) {
      const again = await login(user);
      expect(again.device).toBe(first.get(user));
      expect(again.checks.device_user_count).toBe(20);
    }
  });
});
