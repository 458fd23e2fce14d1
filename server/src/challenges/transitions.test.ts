import { describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { canTransition, transition } from "./transitions.js";

describe("challenge transitions", () => {
  it("follow the lifecycle created → presented → code_sent → verified → completed", () => {
    expect(transition("created", "open")).toBe("presented");
    expect(transition("presented", "send")).toBe("code_sent");
    expect(transition("code_sent", "verify")).toBe("verified");
    expect(transition("verified", "complete")).toBe("completed");
  });

  it("refuse impossible moves with 409 invalid_transition", () => {
    for (const [from, op] of [
      ["created", "complete"],
      ["completed", "send"],
      ["failed", "verify"],
      ["presented", "verify"],
      ["verified", "skip"],
    ] as const) {
      expect(canTransition(from, op)).toBeUndefined();
      try {
        transition(from, op);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        expect((e as ApiError).status).toBe(409);
        expect((e as ApiError).code).toBe("invalid_transition");
      }
    }
  });

  it("let pending challenges be overridden or expire, never terminal ones", () => {
    expect(canTransition("code_sent", "override")).toBe("overridden");
    expect(canTransition("presented", "expire")).toBe("failed");
    expect(canTransition("completed", "override")).toBeUndefined();
    expect(canTransition("skipped", "expire")).toBeUndefined();
  });
});
