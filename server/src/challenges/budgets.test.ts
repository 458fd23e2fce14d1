// Budgets per source (docs/security.md): which counters a challenge's sends and guesses spend. A stranger's challenge
// spends its browser's and its network's; a vouched browser's, its own; a link request also its client's; every send
// the project's. The HTTP behaviour is server/test/budgets.test.ts.
import { describe, expect, it } from "vitest";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Decision } from "../pipeline/decide.js";
import type { Identity } from "../pipeline/identity.js";
import type { ChallengeRow } from "../store/challenges.js";
import { challengeSource, refuseIfSpent, sendBudgets, sourceColumns, sourceKeyOf, wrongCodeBudgets } from "./budgets.js";

const CAPS = { CODE_SENDS_PER_RECIPIENT: 5, CODE_SENDS_PER_USER: 10, CODE_SENDS_PER_IP: 20, CODE_SENDS_PER_PROJECT: 1000 };

const row = (source: Partial<ChallengeRow>): ChallengeRow =>
  ({
    user_id: "usr_1",
    source_key: "k1",
    source_network: "198.51.100.0/24",
    source_vouched: 0,
    contact_only: 0,
    ...source,
  }) as ChallengeRow;

describe("challenge sources", () => {
  const input = (over: Partial<EvaluationInput>): EvaluationInput =>
    ({
      env: { id: "env_1" },
      source: "client",
      ip: "2001:db8:1:2::7",
      signals: { visitor_token: "tok-owner" },
      ...over,
    }) as EvaluationInput;
  const identity = (visitor_token: string | null): Identity => ({ device: { row: { id: "dev_1", visitor_token } } }) as unknown as Identity;
  const decision = (over: Partial<Decision>): Decision => ({
    verdict: "challenge",
    reasons: [],
    checks: {},
    risks: [],
    familiar: {},
    ...over,
  });

  it("a browser is its visitor token, else its device, hashed; its network is the /64 or /24 of its address", () => {
    const s = challengeSource(input({}), identity("tok-owner"), decision({}));
    expect(s).toEqual({
      key: sourceKeyOf("tok-owner", undefined, "env_1"),
      network: "2001:db8:1:2::/64",
      vouched: false,
      contactOnly: false,
    });
    expect(s.key).not.toContain("tok");
    expect(sourceKeyOf(undefined, "dev_1", "env_1")).not.toBe(sourceKeyOf("dev_1", undefined, "env_1"));
    // A backend's request naming no browser: that environment's backend, not every environment's.
    expect(sourceKeyOf(undefined, undefined, "env_1")).toBe("backend:env_1");
    expect(sourceKeyOf(undefined, undefined, "env_2")).not.toBe(sourceKeyOf(undefined, undefined, "env_1"));
    expect(challengeSource(input({ ip: undefined }), identity(null), decision({})).network).toBeNull();
  });

  it("vouched: signed in on the device of this very token, a valid user_token, or a backend's evaluation", () => {
    expect(challengeSource(input({}), identity("tok-owner"), decision({ signedIn: true })).vouched).toBe(true);
    // The owner's device found by a look-alike fingerprint under another token (or none): a stranger's browser.
    expect(challengeSource(input({}), identity("tok-other"), decision({ signedIn: true })).vouched).toBe(false);
    expect(challengeSource(input({ signals: { components: {} } }), identity("tok-owner"), decision({ signedIn: true })).vouched).toBe(
      false,
    );
    expect(challengeSource(input({}), identity(null), decision({ checks: { identity_verified: true } })).vouched).toBe(true);
    expect(
      challengeSource(input({ source: "server", signals: { components: {} } }), { deviceInfo: {} } as unknown as Identity, decision({}))
        .vouched,
    ).toBe(true);
  });

  it("records a challenge raised only by claimed contacts", () => {
    const s = challengeSource(input({}), identity("tok-owner"), decision({ contactOnly: true }));
    expect(sourceColumns(s)).toMatchObject({ source_vouched: 0, contact_only: 1, source_network: "2001:db8:1:2::/64" });
  });
});

describe("send budgets", () => {
  it("a stranger's challenge spends its browser's and its network's budgets for the recipient and the user", () => {
    const keys = sendBudgets(CAPS, row({}), "dest", "prj_1", undefined).map((b) => `${b.key} ${b.limit}`);
    expect(keys).toEqual([
      "code-to:dest:b:k1 5",
      "code-to:dest:n:198.51.100.0/24 5",
      "code-user:usr_1:b:k1 10",
      "code-user:usr_1:n:198.51.100.0/24 10",
      "code-project:prj_1 1000",
    ]);
  });

  it("a vouched browser's challenge spends its own budgets only, in a namespace no stranger's reaches", () => {
    const keys = sendBudgets(CAPS, row({ source_vouched: 1 }), "dest", "prj_1", undefined).map((b) => b.key);
    expect(keys).toEqual(["code-to:dest:v:k1", "code-user:usr_1:v:k1", "code-project:prj_1"]);
  });

  it("a link request also spends its client's budget: an IPv4 address, an IPv6 /64", () => {
    const v4 = sendBudgets(CAPS, row({}), "d", "p", "203.0.113.9").find((b) => b.key.startsWith("code-ip:"));
    expect(v4).toMatchObject({ key: "code-ip:203.0.113.9", limit: 20 });
    const v6 = sendBudgets(CAPS, row({}), "d", "p", "2001:db8:1:2::abcd").find((b) => b.key.startsWith("code-ip:"));
    expect(v6?.key).toBe("code-ip:2001:db8:1:2::/64");
  });

  it("a challenge stored before sources were recorded spends an unknown browser's budget, and no user's without a user", () => {
    const keys = sendBudgets(CAPS, row({ source_key: null, source_network: null, user_id: null }), "d", "p", undefined).map((b) => b.key);
    expect(keys).toEqual(["code-to:d:b:unknown", "code-project:p"]);
  });
});

describe("wrong-code budgets", () => {
  it("per user and source; none without a user", () => {
    expect(wrongCodeBudgets({ WRONG_CODES_PER_USER: 10 }, row({})).map((b) => b.key)).toEqual([
      "wrong-code:usr_1:b:k1",
      "wrong-code:usr_1:n:198.51.100.0/24",
    ]);
    expect(wrongCodeBudgets({ WRONG_CODES_PER_USER: 10 }, row({ source_vouched: 1 })).map((b) => b.key)).toEqual(["wrong-code:usr_1:v:k1"]);
    expect(wrongCodeBudgets({ WRONG_CODES_PER_USER: 10 }, row({ user_id: null }))).toEqual([]);
  });
});

describe("refusals", () => {
  it("a 429 naming the budget that keeps the caller waiting longest; nothing when all allow", () => {
    const budgets = sendBudgets(CAPS, row({}), "d", "p", "203.0.113.9");
    const allowed = { allowed: true, retryAfterMs: 0, limit: 1, remaining: 1 };
    expect(() =>
      refuseIfSpent(
        budgets,
        budgets.map(() => allowed),
      ),
    ).not.toThrow();
    const results = budgets.map((b) =>
      b.key.startsWith("code-ip:")
        ? { ...allowed, allowed: false, retryAfterMs: 90_000 }
        : b.key.startsWith("code-to:")
          ? { ...allowed, allowed: false, retryAfterMs: 1000 }
          : allowed,
    );
    expect(() => refuseIfSpent(budgets, results)).toThrow(
      expect.objectContaining({ status: 429, message: "Too many codes asked for from this network: try again later" }),
    );
  });
});
