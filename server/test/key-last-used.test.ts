// Secret keys show their label and when they were last used, on both stores: an operator tells a key in use from a
// forgotten one before revoking it. The use is noted to the minute, so a busy key costs one write a minute at most.
import { ApiKeyList, ApiKeySummary, ErrorBody } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { consoleCall, type Operator, operator } from "./console-helpers.js";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describeStores("secret keys' label and last use on %s", (kind) => {
  let t: TestApp;
  let owner: Operator;
  let envId: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    owner = await operator(t, "keys-owner@example.com", "owner", [t.project.id]);
    envId = t.project.environments.development.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const keys = async () => strict(ApiKeyList).parse((await consoleCall(t, owner, envId, "GET", "/v3/keys")).json()).data;

  it("a key made with a label shows it; it has no last use until it authenticates a request, then its time", async () => {
    const created = await consoleCall(t, owner, envId, "POST", "/v3/keys", { label: "billing worker" });
    expect(created.statusCode, created.body).toBe(201);
    const key = strict(ApiKeySummary).parse(created.json());
    expect(key.label).toBe("billing worker");
    expect(key.last_used_at).toBeUndefined();
    const before = Date.now();
    const used = await t.app.inject({ method: "GET", url: "/v3/settings", headers: { authorization: `Bearer ${key.secret}` } });
    expect(used.statusCode).toBe(200);
    const listed = (await keys()).find((k) => k.id === key.id)!;
    expect(listed.label).toBe("billing worker");
    expect(Date.parse(listed.last_used_at ?? "")).toBeGreaterThanOrEqual(before - 1000);
    // The key that was never used says so by having none.
    expect((await keys()).filter((k) => k.id !== key.id && k.label === undefined).every((k) => k.last_used_at === undefined)).toBe(true);
  });

  it("uses within the minute write nothing more: the time stays the first use's", async () => {
    const first = (await keys()).find((k) => k.label === "billing worker")!.last_used_at;
    const row = await t.services.repos.projects.listKeys(t.project.id);
    const id = row.find((k) => k.label === "billing worker")!.id;
    // Another instance's process, with nothing in memory, reads the same time and writes nothing either.
    for (let i = 0; i < 3; i++) await t.app.inject({ method: "GET", url: "/v3/settings", headers: t.auth });
    expect((await keys()).find((k) => k.id === id)!.last_used_at).toBe(first);
  });

  it("a bad label is a 400 naming it", async () => {
    const r = await consoleCall(t, owner, envId, "POST", "/v3/keys", { label: "two\nlines" });
    expect(r.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(r.json()).error.param).toBe("label");
  });

  it("look-alike: a key made without a body still works, unlabelled", async () => {
    const r = await consoleCall(t, owner, envId, "POST", "/v3/keys");
    expect(r.statusCode).toBe(201);
    expect(strict(ApiKeySummary).parse(r.json()).label).toBeUndefined();
  });
});
