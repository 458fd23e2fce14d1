// The compiled response serializers write the zod path's bytes (zod's encode, then JSON.stringify), strip what the
// schema does not declare, refuse what does not match it, and leave to the zod path the schemas they cannot write
// faithfully. (Every answer of the route tests is also compared with the zod path: TESSERA_SERIALIZER_CHECK.)
import { Evaluation, Policy, PolicyPage, WebhookPayload } from "@tessera/sdk/contract";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { type $ZodType, safeEncode } from "zod/v4/core";
import { compileResponse } from "./serialize.js";

function zodPath(schema: $ZodType, data: unknown): string {
  const r = safeEncode(schema, data);
  if (r.error) throw r.error;
  return JSON.stringify(r.data);
}

function compiled(schema: $ZodType) {
  const write = compileResponse(schema);
  if (!write) throw new Error("not compiled");
  return write;
}

const evaluation = {
  id: "ev_1",
  action: "login",
  verdict: "challenge",
  reasons: ["new_ip", 'quote " and \\ backslash', "ünïcødé ✓ \u2028 \ud83d\ude00 \ud800"],
  user: { service_id: "usr_1", id: "acct_42", email: "a@example.com" },
  challenge: { id: "ch_1", status: "presented" },
  fingerprint: { id: "fp_1", confidence: 0.5 },
  geolocation: { ip: "203.0.113.9", latitude: -0, longitude: 1e21, security: { vpn: false, proxy: true, tor: false, hosting: false } },
  risks: [{ id: "rsk_1.ato", definition: "rdef_ato", name: "ato", severity: "high", score: 60.5, indicators: ["new_ip"] }],
  metadata: { plan: "pro", nested: { a: [1, null, "x"] }, gone: undefined },
  checks: { is_new_ip: true, ip_user_count: 3, ip_country: null, in_list: ["blocked"], email: "a@example.com" },
  consumed: false,
  createdAt: "2026-11-23T10:00:00.000Z",
  updatedAt: "2026-11-23T10:00:01.000Z",
};

describe("compiled response serializers", () => {
  it("write the zod path's bytes: key order, escaping, numbers, nulls, records, optional keys left out", () => {
    const write = compiled(Evaluation);
    expect(write(evaluation)).toBe(zodPath(Evaluation, evaluation));
    const minimal = { id: "ev_2", action: "signup", verdict: "allow", reasons: [], createdAt: "x", updatedAt: "y", user: undefined };
    expect(write(minimal)).toBe(zodPath(Evaluation, minimal));
    const Mixed = z.object({
      a: z.optional(z.union([z.string(), z.array(z.string())])),
      b: z.nullable(z.object({ c: z.number() })),
      d: z.record(z.string(), z.nullable(z.number())),
      e: z._default(z.boolean(), true),
      f: z.literal("x"),
    });
    for (const v of [
      { a: "s", b: null, d: {}, e: false, f: "x" },
      { a: ["p", "q"], b: { c: 1, extra: 2 }, d: { k: null, l: 2.5 }, e: true, f: "x" },
    ])
      expect(compiled(Mixed)(v)).toBe(zodPath(Mixed, v));
  });

  it("leave out keys the schema does not declare, at any depth", () => {
    const leaky = {
      ...evaluation,
      code_hash: "sha256:secret",
      user: { ...evaluation.user, password_hash: "x" },
      risks: [{ ...evaluation.risks[0], internal: 1 }],
    };
    const body = compiled(Evaluation)(leaky);
    expect(body).not.toMatch(/code_hash|password_hash|internal/);
    expect(body).toBe(zodPath(Evaluation, leaky));
  });

  it("refuse an answer that does not match, where zod refuses it", () => {
    const write = compiled(Evaluation);
    const bad: unknown[] = [
      { id: "ev_broken", verdict: 42 },
      { ...evaluation, verdict: "maybe" },
      { ...evaluation, id: 7 },
      { ...evaluation, reasons: "new_ip" },
      { ...evaluation, risks: [{ ...evaluation.risks[0], score: Number.NaN }] },
      { ...evaluation, risks: [{ ...evaluation.risks[0], score: undefined }] },
      { ...evaluation, fingerprint: { id: "fp_1", confidence: 1.5 } },
      { ...evaluation, checks: { is_new_ip: { nested: true } } },
      { ...evaluation, checks: { is_new_ip: undefined } },
      { ...evaluation, user: null },
      [evaluation],
    ];
    for (const v of bad) {
      expect(() => zodPath(Evaluation, v), JSON.stringify(v)).toThrow();
      expect(() => write(v), JSON.stringify(v)).toThrow();
    }
    const Strict = z.strictObject({ a: z.string() });
    expect(() => compiled(Strict)({ a: "x", b: 1 })).toThrow();
    expect(compiled(Strict)({ a: "x" })).toBe('{"a":"x"}');
  });

  it("leave to the zod path what they cannot write faithfully: unions of objects, tuples", () => {
    expect(compileResponse(Policy)).toBeUndefined();
    expect(compileResponse(PolicyPage)).toBeUndefined();
    expect(compileResponse(WebhookPayload)).toBeUndefined();
    expect(compileResponse(z.tuple([z.string()]))).toBeUndefined();
    expect(compileResponse(z.union([z.string(), z.enum(["a"])]))).toBeUndefined();
    expect(compileResponse({ type: "object" })).toBeUndefined();
  });
});
