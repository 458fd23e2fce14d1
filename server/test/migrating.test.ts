// What a backend written against the hosted service sends, over HTTP on both stores (docs/migrating.md): a user
// update merges metadata key by key and takes group objects; a list add or remove takes `value` as well as `values`;
// the compatibility script is served beside Tessera's own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";

describeStores("the hosted service's shapes on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
  });
  afterAll(async () => t?.close());

  const update = (id: string, payload: unknown) =>
    t.app.inject({ method: "POST", url: `/v3/user/${id}/update`, headers: t.auth, payload: payload as object });
  const detail = async (id: string) => {
    const r = await t.app.inject({ method: "GET", url: `/v3/users/${id}`, headers: t.auth });
    expect(r.statusCode).toBe(200);
    return r.json() as { metadata: Record<string, unknown>; groups: unknown[]; email?: string };
  };

  it("metadata is merged: keys sent are set, null removes one, keys not sent stay", async () => {
    expect((await update("m_user", { metadata: { plan: "pro", seats: 3, region: "eu" } })).statusCode).toBe(204);
    expect((await update("m_user", { metadata: { plan: "team", region: null } })).statusCode).toBe(204);
    expect((await detail("m_user")).metadata).toEqual({ plan: "team", seats: 3 });
    // Its look-alike: other fields alone leave the metadata as it was.
    expect((await update("m_user", { email: "m@example.com" })).statusCode).toBe(204);
    expect(await detail("m_user")).toMatchObject({ metadata: { plan: "team", seats: 3 }, email: "m@example.com" });
  });

  it("an update that changes nothing writes nothing", async () => {
    await update("same_user", { email: "same@example.com", metadata: { plan: "pro" }, groups: ["beta"] });
    const before = await t.services.repos.users.findByExternal(t.project.environments.development.id, "same_user");
    expect((await update("same_user", { email: "same@example.com", metadata: { plan: "pro" }, groups: ["beta"] })).statusCode).toBe(204);
    const after = await t.services.repos.users.findByExternal(t.project.environments.development.id, "same_user");
    expect(after?.updated_at).toBe(before?.updated_at);
  });

  it("groups as the service sends them: one object, or an array of objects and ids; they replace the stored ones", async () => {
    expect((await update("g_user", { groups: { id: "org_1", name: "Acme", metadata: { tier: "gold" } } })).statusCode).toBe(204);
    expect((await detail("g_user")).groups).toEqual([{ id: "org_1", name: "Acme", metadata: { tier: "gold" } }]);
    expect((await update("g_user", { groups: [{ id: "org_2" }, "beta"] })).statusCode).toBe(204);
    expect((await detail("g_user")).groups).toEqual([{ id: "org_2" }, { id: "beta" }]);
    // A group without an id is a 400 naming the field, never a 500.
    const bad = await update("g_user", { groups: [{ name: "no id" }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toMatch(/^groups/);
  });

  it("a list add and remove take `value` as well as `values`, but not both", async () => {
    const add = await t.app.inject({ method: "POST", url: "/v3/lists/blocked/add", headers: t.auth, payload: { value: "acct_1" } });
    expect(add.json()).toEqual({ added: 1, updated: 0, total: 1 });
    const both = await t.app.inject({
      method: "POST",
      url: "/v3/lists/blocked/add",
      headers: t.auth,
      payload: { value: "acct_1", values: ["acct_2"] },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().error.param).toBe("values");
    const remove = await t.app.inject({ method: "POST", url: "/v3/lists/blocked/remove", headers: t.auth, payload: { value: "acct_1" } });
    expect(remove.json()).toEqual({ removed: 1, total: 0 });
  });
});

describe("the compatibility script", () => {
  it("is served at /sdk/v3/rupt.js beside tessera.js, cacheable and embeddable cross-origin", async () => {
    const t = await startTestApp("sqlite", { WORKERS: "0" });
    try {
      const r = await t.app.inject({ method: "GET", url: "/sdk/v3/rupt.js" });
      // 503 only when the SDK is not built (a fresh clone before `npm run build`).
      if (r.statusCode === 503) return;
      expect(r.statusCode).toBe(200);
      expect(r.headers["content-type"]).toMatch(/^application\/javascript/);
      expect(r.headers["access-control-allow-origin"]).toBe("*");
      expect(r.body).toMatch(/var Rupt=/);
    } finally {
      await t.close();
    }
  });
});
