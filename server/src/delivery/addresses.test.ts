// Code destinations (SPEC.md 12): one RFC 5322 addr-spec per email, valid E.164 phones; the rest is refused.
import { describe, expect, it } from "vitest";
import { checkContacts, destinationKey, parseEmail, parsePhone, phoneCountry, smsCountries } from "./addresses.js";

describe("code destinations", () => {
  it.each(["a@example.com", "first.last+tag@mail.example.org", "o'brien@example.ie", "é@exämple.fr", "a@example.c0m"])(
    "accepts the single address %s",
    (email) => expect(parseEmail(email)).toBe(email),
  );

  it.each([
    ["a list", "a@x.com,b@y.com"],
    ["a list with ;", "a@x.com;b@y.com"],
    ["a header injection", "a@x.com\r\nBcc: c@evil.example"],
    ["a bare line feed", "a@x.com\nBcc: c@evil.example"],
    ["a display name", "Alice <a@example.com>"],
    ["a comment", "a(c)@example.com"],
    ["a quoted local part", '"a,b"@example.com'],
    ["surrounding space", " a@example.com"],
    ["a domain literal", "a@[127.0.0.1]"],
    ["a dotless domain", "a@localhost"],
    ["two dots", "a..b@example.com"],
    ["no @", "not-an-email"],
  ])("refuses %s", (_why, email) => expect(parseEmail(email)).toBeUndefined());

  it("answers a second time as the first (the parser's answers are remembered, refusals included)", () => {
    for (let i = 0; i < 2; i++) {
      expect(parseEmail("again@example.com")).toBe("again@example.com");
      expect(parseEmail("Again <again@example.com>")).toBeUndefined();
      expect(parseEmail("again@example.com\r\nBcc: c@evil.example")).toBeUndefined();
    }
  });

  it("accepts valid E.164 numbers only", () => {
    expect(parsePhone("+33612345678")).toBe("+33612345678");
    expect(parsePhone("+14155550199")).toBe("+14155550199");
    for (const bad of ["+1415555019", "+3361234567890", "+33 6 12 34 56 78", "0612345678", "+33612345678,+33698765432"])
      expect(parsePhone(bad), bad).toBeUndefined();
  });

  it("checkContacts names the offending field; null (clear) passes", () => {
    expect(() => checkContacts({ email: "a@x.com,b@y.com" })).toThrow(expect.objectContaining({ status: 400, param: "email" }));
    expect(() => checkContacts({ phone: "+1415555019" })).toThrow(expect.objectContaining({ status: 400, param: "phone" }));
    expect(() => checkContacts({ email: null, phone: null })).not.toThrow();
  });

  it("destination keys compare emails without case and hold no address in clear", () => {
    expect(destinationKey("email", "Alice@Example.com")).toBe(destinationKey("email", "alice@example.com"));
    expect(destinationKey("email", "alice@example.com")).not.toContain("alice");
    expect(destinationKey("text", "+33612345678")).not.toBe(destinationKey("email", "+33612345678"));
  });

  it("destination keys make one inbox one recipient: Gmail's dots and sub-addresses, as accounts are keyed", () => {
    const inbox = destinationKey("email", "jdoe@gmail.com");
    for (const spelling of ["j.doe@gmail.com", "jd.oe@gmail.com", "JDoe+1@gmail.com", "j.d.o.e+pump@googlemail.com"])
      expect(destinationKey("email", spelling), spelling).toBe(inbox);
    expect(destinationKey("email", "name+tag@outlook.com")).toBe(destinationKey("email", "name@outlook.com"));
    // Two people of one household, two inboxes; a domain whose server may tell dots apart keeps them.
    expect(destinationKey("email", "alice.martin@gmail.com")).not.toBe(destinationKey("email", "bob.martin@gmail.com"));
    expect(destinationKey("email", "j.doe@example.com")).not.toBe(destinationKey("email", "jdoe@example.com"));
  });

  it("a phone's country is its ISO code; a non-geographic number has none", () => {
    expect(phoneCountry("+33612345678")).toBe("FR");
    expect(phoneCountry("+14155550199")).toBe("US");
    expect(phoneCountry("+447400123456")).toBe("GB");
    expect(phoneCountry("+80012345678")).toBeUndefined();
  });

  it("sms_countries are stored upper case, once each; an unknown code is named by its position", () => {
    expect(smsCountries(["fr", "BE", "FR"])).toEqual({ countries: ["FR", "BE"] });
    expect(smsCountries(["FR", "ZZ"])).toEqual({ invalid: 1 });
    expect(smsCountries(["FRA"])).toEqual({ invalid: 0 });
    expect(smsCountries([])).toEqual({ countries: [] });
  });
});
