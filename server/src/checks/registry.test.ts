// The registry of checks (checks/index.ts) is the one definition of every check: the contract's browser-safe catalogue
// says the same names and types in the same order, every check says what it means and what it names in `reasons`, and
// nothing else (a risk weight, a default policy) refers to a check that does not exist; and what judges (checks, policies)
// and what collects (facts) leave SQL to the store.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { CHECKS, type Condition } from "@tessera/sdk/contract";
import { describe, expect, it, vi } from "vitest";
import { defaultPolicies } from "../policies/defaults.js";
import { RISKS } from "../risks/table.js";
import { checkReason, computeChecks, FAMILIES, NEEDED_FACTS, RECORDED_DIMENSIONS, REGISTERED_CHECKS } from "./index.js";

function checksOf(c: Condition): string[] {
  if ("all" in c) return c.all.flatMap(checksOf);
  if ("any" in c) return c.any.flatMap(checksOf);
  if ("not" in c) return checksOf(c.not);
  return [c.check];
}

const registered = new Set(REGISTERED_CHECKS.map((c) => c.name));

describe("the registry of checks", () => {
  it("says the contract catalogue's names and types, in its order", () => {
    expect(REGISTERED_CHECKS.map((c) => [c.name, c.type])).toEqual(Object.entries(CHECKS));
  });

  it("defines each check once, in one family", () => {
    expect(registered.size).toBe(REGISTERED_CHECKS.length);
    for (const [family, checks] of Object.entries(FAMILIES)) expect(checks.length, family).toBeGreaterThan(0);
  });

  it("gives every check a doc and a reason", () => {
    for (const c of REGISTERED_CHECKS) {
      expect(c.doc.length, c.name).toBeGreaterThan(10);
      const reason = typeof c.reason === "string" ? c.reason : Object.values(c.reason)[0];
      expect(reason, c.name).toMatch(/^[a-z][a-z_]*$/);
      // A `{ false }` reason is a boolean's, a `{ low }` one a number's.
      if (typeof c.reason !== "string") expect("false" in c.reason ? "boolean" : "number", c.name).toBe(c.type);
    }
  });

  it("has a risk weight only on a registered check", () => {
    for (const risk of RISKS) for (const w of risk.weights) expect(registered.has(w.check), `${risk.name}: ${w.check}`).toBe(true);
  });

  it("has a default policy test only registered checks and risks", () => {
    for (const { key, policy } of defaultPolicies())
      for (const check of checksOf(policy.conditions)) {
        const risk = /^risk\.([a-z_]+)\.(score|severity)$/.exec(check);
        if (risk)
          expect(
            RISKS.map((r) => r.name),
            `${key}: ${check}`,
          ).toContain(risk[1]);
        else expect(registered.has(check), `${key}: ${check}`).toBe(true);
      }
  });

  it("loads the facts the checks need, each provider once, under a name of its own", () => {
    const needed = new Set(REGISTERED_CHECKS.flatMap((c) => c.needs));
    expect(new Set(NEEDED_FACTS)).toEqual(needed);
    const names = NEEDED_FACTS.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("records each familiarity dimension under one name", () => {
    const names = RECORDED_DIMENSIONS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["ip", "network", "network_asn", "provider_asn", "country", "timezone", "language"]));
  });
});

describe("the checks snapshot computeChecks builds", () => {
  // Checks that read the request alone (checks/families/lists.ts): enough to compute a view's subset without facts.
  const only = new Set(["ip", "action", "user_id"]);
  const input = { action: "access", user: "u1", ip: "203.0.113.9" } as unknown as Parameters<typeof computeChecks>[0];
  const compute = () =>
    computeChecks(input, {} as Parameters<typeof computeChecks>[1], {} as Parameters<typeof computeChecks>[2], {} as never, {
      deviceLimit: 3,
      only,
    });

  it("holds the checks computed, in the registry's order, each with its value", () => {
    const snapshot = compute();
    expect(Object.keys(snapshot)).toEqual(REGISTERED_CHECKS.map((c) => c.name).filter((n) => only.has(n)));
    expect(snapshot).toEqual({ action: "access", user_id: "u1", ip: "203.0.113.9" });
    expect(JSON.stringify(snapshot)).toBe('{"action":"access","user_id":"u1","ip":"203.0.113.9"}');
    // Each evaluation has a snapshot of its own.
    expect(compute()).not.toBe(snapshot);
  });

  it("is held in V8's fast layout, not as a dictionary (copied from a shape of the registry's keys)", () => {
    v8.setFlagsFromString("--allow-natives-syntax");
    const fast = new Function("o", "return %HasFastProperties(o)") as (o: object) => boolean;
    // A hundred keys set one by one on an empty object: the dictionary that the snapshot was.
    const keyed: Record<string, unknown> = {};
    for (const c of REGISTERED_CHECKS) keyed[c.name] = 1;
    expect(fast(keyed)).toBe(false);
    expect(fast(compute())).toBe(true);
    // Every check of the registry (their values stubbed: they would need an evaluation's facts).
    const spies = REGISTERED_CHECKS.map((c, i) => vi.spyOn(c, "compute").mockReturnValue(i % 2 === 0 ? i : `v${i}`));
    try {
      const all = computeChecks(input, {} as never, {} as never, {} as never, { deviceLimit: 3 });
      expect(Object.keys(all)).toEqual(REGISTERED_CHECKS.map((c) => c.name));
      expect(Object.values(all)).toEqual(REGISTERED_CHECKS.map((_, i) => (i % 2 === 0 ? i : `v${i}`)));
      expect(fast(all)).toBe(true);
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });
});

describe("what a comparison that held names in reasons", () => {
  it("a boolean: its reason when it is true, nothing when it held on false or null", () => {
    expect(checkReason("is_new_fingerprint", "eq", true)).toBe("new_fingerprint");
    expect(checkReason("is_new_user", "eq", false)).toBeUndefined();
    expect(checkReason("ip_is_anonymous", "eq", false)).toBeUndefined();
    expect(checkReason("is_new_timezone", "ne", null)).toBeUndefined();
    expect(checkReason("is_new_timezone", "ne", true)).toBe("new_timezone");
    expect(checkReason("is_new_country", "exists", null)).toBeUndefined();
  });

  it("a boolean whose telling value is false: its reason when it is false", () => {
    expect(checkReason("timezone_in_ip_country", "eq", false)).toBe("timezone_outside_ip_country");
    expect(checkReason("timezone_in_ip_country", "ne", true)).toBeUndefined();
  });

  it("a number: its reason on a lower bound, nothing on an upper bound or `exists`", () => {
    expect(checkReason("devices_over_limit", "gt", 1)).toBe("limit_exceeded");
    expect(checkReason("ip_user_count", "gte", 10)).toBe("shared_ip");
    expect(checkReason("ip_user_count", "lte", 1)).toBeUndefined();
    expect(checkReason("distance_from_trusted_km", "exists", 12)).toBeUndefined();
  });

  it("a number whose telling values are low: its reason on an upper bound", () => {
    expect(checkReason("user_age_days", "lt", 0)).toBe("new_account");
    expect(checkReason("user_age_days", "gte", 300)).toBeUndefined();
  });

  it("a string: its reason on a value matched, nothing on one excluded", () => {
    expect(checkReason("ip_country", "in", "RU")).toBe("ip_country");
    expect(checkReason("device_type", "not_in", "computer")).toBeUndefined();
  });
});

describe("the layering of detection", () => {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const sources = (dir: string): string[] =>
    fs
      .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .map((f) => path.join(dir, f));

  it("facts, checks and policies write no SQL: they call repositories (server/src/store)", () => {
    for (const file of [...sources("facts"), ...sources("checks"), ...sources("policies")]) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      expect(text, file).not.toMatch(/from "kysely"|\.selectFrom\(|\.insertInto\(|\.updateTable\(|\.deleteFrom\(/);
    }
  });

  it("a check family reads the store only through the facts it needs", () => {
    for (const file of sources("checks/families")) {
      const imports = [
        ...fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(/^import (type )?.* from "(\.\.\/\.\.\/store\/[^"]+)";$/gm),
      ];
      // Types of what the facts hold, and constants, are fine; a repository is not.
      for (const m of imports) expect(m[0], file).not.toMatch(/Repo\b|repos\.js/);
    }
  });
});
