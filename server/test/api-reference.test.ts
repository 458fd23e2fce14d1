// The API agrees with its own reference (the OpenAPI document at /openapi.json, docs/server-api.md), on both stores:
// a second open of a challenge answers the view (a reload of the hosted page), an unknown user's devices answer 404
// saying why, and every object's dates follow one naming convention (docs/server-api.md, "Dates").
import * as contract from "@tessera/sdk/contract";
import { ChallengeView, DevOutbox, ErrorBody } from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challengedEvaluation, describeStores, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

type Operation = { description?: string; responses: Record<string, { description: string }> };

describeStores("the API and its reference on %s", (kind) => {
  let t: TestApp;
  let openapi: { paths: Record<string, Record<string, Operation>> };
  beforeAll(async () => {
    t = await startTestApp(kind);
    openapi = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
    await t.app.inject({ method: "POST", url: "/v3/lists/test_challenge/add", headers: t.auth, payload: { values: ["ref-user"] } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("a second open of a challenge answers the view, as documented (never a 409)", async () => {
    const c = await challengedEvaluation(t, "login", "ref-user");
    const open = () => t.app.inject({ method: "POST", url: `/v3/challenges/${c.id}/open`, headers: c.headers });
    const first = await open();
    expect(first.statusCode).toBe(200);
    const again = await open();
    expect(again.statusCode, again.body).toBe(200);
    expect(strict(ChallengeView).parse(again.json()).challenge.status).toBe("presented");
    const doc = openapi.paths["/v3/challenges/{id}/open"]!.post!;
    expect(doc.description).not.toMatch(/a later open answers 409/i);
    expect(doc.description).toMatch(/A later open \(a reload of the page\) changes nothing and answers the view/);
  });

  it("an unknown user's devices answer 404 naming the id and how a user comes to exist, as documented", async () => {
    const r = await t.app.inject({ method: "GET", url: "/v3/user/nobdy-typo/devices", headers: t.auth });
    expect(r.statusCode).toBe(404);
    const { error } = strict(ErrorBody).parse(r.json());
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/^No user "nobdy-typo" in this environment: Tessera meets a user at the first evaluation naming it/);
    const doc = openapi.paths["/v3/user/{id}/devices"]!.get!;
    expect(doc.responses["200"]!.description).not.toMatch(/empty list/);
    expect(doc.description).toMatch(/never met .* answers 404/);
    // The look-alike: a user met once, with no device of a browser, is an empty list.
    await t.app.inject({ method: "POST", url: "/v3/user/ref-backend-only/update", headers: t.auth, payload: { email: "b@example.com" } });
    const met = await t.app.inject({ method: "GET", url: "/v3/user/ref-backend-only/devices", headers: t.auth });
    expect(met.statusCode).toBe(200);
    expect(met.json()).toEqual([]);
  });

  it("a dev-outbox message has createdAt like every object (and, for a while, its former created_at)", async () => {
    const c = await challengedEvaluation(t, "login", "ref-user");
    const sent = await t.app.inject({
      method: "POST",
      url: `/v3/challenges/${c.id}/send`,
      headers: c.headers,
      payload: { channel: "email" },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const outbox = strict(DevOutbox).parse((await t.app.inject({ method: "GET", url: "/v3/dev/outbox", headers: t.auth })).json());
    const message = outbox.data[0]!;
    expect(message.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(message.created_at).toBe(message.createdAt);
  });
});

/** Every object schema of the contract, by its export name and path, with its keys. */
function objectShapes(): { name: string; keys: string[] }[] {
  const out: { name: string; keys: string[] }[] = [];
  const seen = new Set<unknown>();
  const visit = (schema: unknown, name: string, depth: number) => {
    if (!schema || typeof schema !== "object" || seen.has(schema) || depth > 6) return;
    seen.add(schema);
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return;
    const shape = def.shape as Record<string, unknown> | undefined;
    if (shape && typeof shape === "object") {
      out.push({ name, keys: Object.keys(shape) });
      for (const [k, v] of Object.entries(shape)) visit(v, `${name}.${k}`, depth + 1);
    }
    for (const inner of ["innerType", "element", "valueType", "in", "out"]) visit(def[inner], name, depth + 1);
    for (const option of (def.options as unknown[] | undefined) ?? []) visit(option, name, depth + 1);
  };
  for (const [name, value] of Object.entries(contract)) visit(value, name, 0);
  return out;
}

describe("dates in the contract", () => {
  it("record times are createdAt / updatedAt, every other time <event>_at (webhook envelopes keep the specification's created_at)", () => {
    const wrong: string[] = [];
    for (const { name, keys } of objectShapes()) {
      for (const key of keys) {
        if (/[a-z]At$/.test(key) && key !== "createdAt" && key !== "updatedAt") wrong.push(`${name}.${key}`);
        if (key === "updated_at") wrong.push(`${name}.${key}`);
        // created_at: the webhook envelope's event time, or a deprecated alias sent beside createdAt.
        if (key === "created_at" && !keys.includes("event") && !keys.includes("createdAt")) wrong.push(`${name}.${key}`);
      }
    }
    expect(wrong).toEqual([]);
    // The walk did find the objects it judges.
    expect(objectShapes().some((s) => s.keys.includes("consumed_at") && s.keys.includes("createdAt"))).toBe(true);
  });
});
