// The strength check is zxcvbn's estimate, with the operator's email as words to avoid.
import { describe, expect, it } from "vitest";
import { checkPasswordStrength, MIN_PASSWORD_SCORE, passwordStrength } from "./password-strength.js";

describe("operator password strength", () => {
  it("repeats, common passwords and keyboard runs are weak; unrelated words are strong", async () => {
    for (const weak of ["aaaaaaaaaaaa", "password1234", "qwertyuiopasdf", "123456789012"])
      expect((await passwordStrength(weak, "ops@example.com")).score, weak).toBeLessThan(MIN_PASSWORD_SCORE);
    for (const strong of ["plum orbit velvet canyon", "correct horse battery staple"])
      expect((await passwordStrength(strong, "ops@example.com")).score, strong).toBeGreaterThanOrEqual(MIN_PASSWORD_SCORE);
  });

  it("the operator's own email makes a password weak that would pass for another operator", async () => {
    expect((await passwordStrength("ana@example.com2024", "ana@example.com")).score).toBeLessThan(MIN_PASSWORD_SCORE);
    await expect(checkPasswordStrength("ana@example.com2024", "ana@example.com")).rejects.toMatchObject({
      status: 400,
      param: "password",
      message: expect.stringMatching(/^This password is too easy to guess\. .*personal/),
    });
  });
});
