// The compatibility layer's browser client (docs/migrating.md): the hosted service's option names are taken, and an
// option it does not know rejects every call by name, before anything is collected or sent. (The mapping's effect in a
// real browser, a challenged login through the hosted page, is e2e/migrating.e2e.ts.)
import { describe, expect, it } from "vitest";
import { UnknownOptionError } from "../browser/errors.js";
import { Rupt } from "./client.js";

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as UnknownOptionError,
  );

describe("Rupt, the service's browser client over Tessera's SDK", () => {
  it("an unknown constructor option never throws into the page, and every call rejects naming it", async () => {
    const rupt = new Rupt({ clientId: "pk_test_1", domain: "t.example", on_logot: () => undefined } as never);
    for (const call of [rupt.evaluate.login({ user: "acct_42" }), rupt.evaluate.access(), rupt.getFingerprint(), rupt.attach()]) {
      const e = await rejection(call);
      expect(e).toBeInstanceOf(UnknownOptionError);
      expect(e?.param).toBe("options.on_logot");
    }
  });

  it("the service's older spellings are accepted, and two spellings that disagree are refused", async () => {
    const e = await rejection(new Rupt({ client_id: "pk_a", clientId: "pk_b", domain: "t.example" }).evaluate.login());
    expect(e?.param).toBe("options.clientId");
  });

  it("options that live elsewhere in Tessera are refused with where they went", async () => {
    const rupt = new Rupt({ clientId: "pk_test_1", domain: "t.example" });
    const groups = await rejection(rupt.evaluate.login({ user: "acct_42", groups: [{ id: "org_1" }] } as never));
    expect(groups).toBeInstanceOf(UnknownOptionError);
    expect(groups?.message).toMatch(/updateUser\(\{ user, groups \}\)/);
    const urls = await rejection(new Rupt({ clientId: "pk_test_1", redirect_urls: {} } as never).evaluate.access());
    expect(urls?.message).toMatch(/policy's challenge/);
    const typo = await rejection(rupt.evaluate.signup({ user: "acct_42", emial: "a@example.com" } as never));
    expect(typo?.param).toBe("evaluate.signup.emial");
  });
});
