// The OpenAPI document (docs/server-api.md) walked whole: every $ref resolves (the recursive policy conditions included), every
// operation has a description, an example and real response descriptions, and its security entry is what the server
// actually demands — checked by calling each operation without credentials, with wrong ones and with a secret key.
import { WEBHOOK_EVENTS, WEBHOOK_PAYLOADS } from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { REGISTRY } from "../src/routes/docs.js";
import { EXAMPLES } from "../src/routes/docs-examples.js";
import { startTestApp, type TestApp } from "./helpers.js";

type Json = Record<string, unknown>;
type Media = { schema?: Json; example?: unknown; examples?: unknown };
type Operation = {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

let t: TestApp;
let doc: Json & { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> } };
let operations: { method: string; path: string; op: Operation }[];

beforeAll(async () => {
  t = await startTestApp("sqlite", { CHALLENGE_IP_RATE_LIMIT: "100000", CLIENT_RATE_LIMIT: "100000" });
  const r = await t.app.inject({ method: "GET", url: "/openapi.json" });
  expect(r.statusCode).toBe(200);
  doc = r.json();
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] as Operation })),
  );
});
afterAll(async () => {
  await t?.close();
});

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

const name = (o: { method: string; path: string }) => `${o.method.toUpperCase()} ${o.path}`;

describe("the OpenAPI document", () => {
  it("lists every operation of the API (at least the ones the README names)", () => {
    const names = operations.map(name);
    for (const expected of [
      "POST /v3/client/evaluate/{action}",
      "POST /v3/client/heartbeat",
      "GET /v3/evaluations/{id}",
      "POST /v3/evaluations/{id}/consume",
      "POST /v3/challenges/{id}/override",
      "GET /v3/policies",
      "GET /v3/dev/outbox",
      "GET /v2/proj/access-history",
    ])
      expect(names).toContain(expected);
    expect(operations.length).toBeGreaterThanOrEqual(45);
  });

  it("every $ref resolves to a named component; policy conditions are the recursive Condition, not a string", () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(50);
    const missing = [...new Set(all)].filter((ref) => !ref.startsWith("#/components/schemas/") || !doc.components.schemas[ref.slice(21)]);
    expect(missing).toEqual([]);
    expect(all.some((r) => /schema\d+$/.test(r))).toBe(false);
    const create = doc.components.schemas.PolicyCreateRequestInput as { properties: Record<string, Json> };
    expect(create.properties.conditions).toEqual({ $ref: "#/components/schemas/ConditionInput" });
    // The tree refers to itself.
    expect(refs(doc.components.schemas.ConditionInput)).toContain("#/components/schemas/ConditionInput");
  });

  it("every operation has a summary, a description, tags and a security entry", () => {
    for (const o of operations) {
      expect(o.op.summary, name(o)).toBeTruthy();
      expect(o.op.description?.length ?? 0, name(o)).toBeGreaterThan(20);
      expect(o.op.description, name(o)).not.toBe(o.op.summary);
      expect(Array.isArray(o.op.security), name(o)).toBe(true);
    }
  });

  it("every operation has an example: of its JSON body, of its JSON answer, or of its path", () => {
    for (const o of operations) {
      const bodies = Object.values(o.op.requestBody?.content ?? {});
      for (const media of bodies) expect(media.example, `${name(o)} request body`).toBeDefined();
      const answers = Object.entries(o.op.responses ?? {})
        .filter(([status]) => status.startsWith("2"))
        .flatMap(([, r]) => Object.values(r.content ?? {}));
      for (const media of answers) expect(media.example, `${name(o)} answer`).toBeDefined();
      const params = (o.op.parameters ?? []).filter((p) => p.in === "path");
      for (const p of params) expect(p.example, `${name(o)} parameter ${p.name}`).toBeDefined();
      expect(bodies.length + answers.length + params.length, `${name(o)} has no example at all`).toBeGreaterThan(0);
    }
  });

  it("every response says what it means (no 'Default Response')", () => {
    for (const o of operations)
      for (const [status, r] of Object.entries(o.op.responses ?? {})) {
        expect(r.description, `${name(o)} ${status}`).toBeTruthy();
        expect(r.description, `${name(o)} ${status}`).not.toBe("Default Response");
      }
  });

  it("every component example is valid for its schema", () => {
    const registered = new Map<string, unknown>();
    for (const [id, example] of Object.entries(EXAMPLES)) registered.set(id, example);
    let checked = 0;
    for (const [id, schema] of REGISTRY._idmap) {
      if (!registered.has(id)) continue;
      const result = z.safeParse(schema, registered.get(id));
      expect(result.error?.issues, id).toBeUndefined();
      checked++;
    }
    expect(checked).toBe(registered.size);
  });

  it("each operation's security is what the server demands", async () => {
    const request = async (o: { method: string; path: string; op: Operation }, headers: Record<string, string>) => {
      const url = o.path.replace(/\{(\w+)\}/g, (_m, p: string) => String(o.op.parameters?.find((x) => x.name === p)?.example ?? "x"));
      const body = o.method === "get" || o.method === "delete" ? {} : { payload: {} };
      return (await t.app.inject({ method: o.method.toUpperCase() as "GET", url, headers, ...body })).statusCode;
    };
    const seen = { none: 0, secretKey: 0, challengeToken: 0 };
    for (const o of operations) {
      const schemes = (o.op.security ?? []).flatMap((s) => Object.keys(s));
      const anonymous = await request(o, {});
      if (schemes.length === 0) {
        seen.none++;
        expect(anonymous, `${name(o)} is documented without credentials`).not.toBe(401);
        continue;
      }
      expect(anonymous, `${name(o)} is documented with ${schemes.join(" or ")}`).toBe(401);
      if (schemes.includes("secretKey")) {
        seen.secretKey++;
        expect(await request(o, { authorization: "Bearer sk_test_unknown" }), name(o)).toBe(401);
        expect(await request(o, t.auth), `${name(o)} with the secret key`).not.toBe(401);
      }
      if (schemes.includes("challengeToken")) {
        seen.challengeToken++;
        expect(await request(o, { "x-challenge-token": "forged" }), name(o)).toBe(401);
      }
    }
    expect(seen.none).toBeGreaterThanOrEqual(8);
    expect(seen.secretKey).toBeGreaterThanOrEqual(30);
    expect(seen.challengeToken).toBeGreaterThanOrEqual(8);
  });
});

describe("the webhooks of the OpenAPI document", () => {
  it("describe each event with its payload schema from the contract, and a delivered event parses strictly with it", () => {
    const hooks = doc.webhooks as Record<string, { post: Operation }>;
    expect(Object.keys(hooks).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    for (const event of WEBHOOK_EVENTS) {
      const ref = hooks[event]?.post.requestBody?.content?.["application/json"]?.schema?.$ref as string;
      const component = doc.components.schemas[ref.slice(21)] as { properties: Record<string, Json>; required: string[] };
      expect(component.properties.event, event).toMatchObject({ const: event });
      expect(component.required, event).toEqual(expect.arrayContaining(["id", "event", "created_at"]));
      expect(REGISTRY.get(WEBHOOK_PAYLOADS[event])?.id).toBe(ref.slice(21));
    }
    const challenge = doc.components.schemas.ChallengeCompletedEvent as { properties: Record<string, Json> };
    expect(challenge.properties.challenge).toEqual({ $ref: "#/components/schemas/Challenge" });
  });
});
