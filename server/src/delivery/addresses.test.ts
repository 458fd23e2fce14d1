// Code destinations (docs/security.md): one RFC 5322 addr-spec per email, valid E.164 phones; the rest is refused.
import emailAddresses from "email-addresses";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkContacts, destinationKey, hasAddressShape, parseEmail, parsePhone, phoneCountry, smsCountries } from "./addresses.js";

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

  it.each([
    ["a local part of 64 characters", `${"a".repeat(64)}@example.com`],
    ["254 characters", `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`],
    ["many dots", `${"a.".repeat(31)}z@${"b.".repeat(90)}com`],
  ])("accepts an address at the length bounds: %s", (_why, email) => expect(parseEmail(email)).toBe(email));

  it.each([
    ["255 characters", `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`],
    ["a local part of 65 characters", `${"a".repeat(65)}@example.com`],
  ])("refuses an address past the length bounds: %s", (_why, email) => expect(parseEmail(email)).toBeUndefined());

  it("answers a second time as the first (the parser's answers are remembered)", () => {
    for (let i = 0; i < 2; i++) {
      expect(parseEmail("again@example.com")).toBe("again@example.com");
      expect(parseEmail("Again <again@example.com>")).toBeUndefined();
      expect(parseEmail("again@example.com\r\nBcc: c@evil.example")).toBeUndefined();
    }
  });

  describe("hostile addresses cost a bounded amount of work", () => {
    /**
     * Runs the RFC 5322 parser on what parseEmail hands it, counting the characters the parser reads (its every step
     * reads one: a backtracking parser reads the same ones again and again). The input is a String wrapped in a proxy
     * that counts index reads; the parser takes it for the string it is.
     */
    function countParser() {
      const original = emailAddresses.parseOneAddress.bind(emailAddresses);
      const seen: { input: string; reads: number }[] = [];
      vi.spyOn(emailAddresses, "parseOneAddress").mockImplementation(((opts: { input: string }) => {
        const entry = { input: opts.input, reads: 0 };
        seen.push(entry);
        const input = new Proxy(new String(opts.input), {
          get(target, key) {
            if (key === Symbol.toStringTag) return "String";
            if (typeof key === "string" && /^\d+$/.test(key)) entry.reads++;
            const value = Reflect.get(target, key);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        return original({ ...opts, input: input as unknown as string });
      }) as typeof emailAddresses.parseOneAddress);
      return seen;
    }
    afterEach(() => vi.restoreAllMocks());
    /** The reads of a parse without backtracking: about 4 a character on a dot-atom address, and about 100 to start. */
    const linear = (input: string) => 128 + 4 * input.length;

    // What an outsider sends to burn the parser: each a unique string, so that no remembered answer hides the work.
    const hostile = (n: number) => [
      `a${"(".repeat(150)}${")".repeat(150)}${n}@example.com`,
      `${"(a".repeat(100)}${")".repeat(100)}b${n}@example.com`,
      `"${"a".repeat(300)}${n}"@example.com`,
      `"${"\\a".repeat(120)}${n}"@example.com`,
      `${"a..".repeat(21)}${n}@${"b..".repeat(60)}com`,
      `${"a.".repeat(127)}${n}`,
      `a${n}@${"b".repeat(300)}.com`,
      `a${n} @example.com`,
      `a${n}@example.com\r\n`,
      `${" ".repeat(200)}a${n}@example.com`,
    ];

    it("comments, quoted strings, whitespace, runs of dots and over-long input never reach the parser", () => {
      const seen = countParser();
      for (const raw of hostile(1)) expect(parseEmail(raw), raw).toBeUndefined();
      expect(seen).toEqual([]);
    });

    it("what reaches the parser is read in linear time: a few reads per character, many dots included", () => {
      const seen = countParser();
      // UTF-8 addresses: an ASCII one never reaches the parser (below).
      const honest = [
        "first.last+count@mail.exämple.org",
        "o'neill@exämple.ie",
        "ü@exämple.de",
        `${"c.".repeat(31)}ÿ@${"d.".repeat(90)}com`,
        `${"e".repeat(64)}@${"f-".repeat(89)}ğ.com`,
        `${"x".repeat(64)}@${"y".repeat(62)}ý.${"z".repeat(63)}.${"w".repeat(57)}.org`,
      ];
      // None met before in this file: the parser runs on each.
      for (const raw of honest) expect(parseEmail(raw), raw).toBe(raw);
      expect(seen).toHaveLength(honest.length);
      for (const s of seen) expect(s.reads, s.input).toBeLessThanOrEqual(linear(s.input));
    });

    it("an ASCII address is answered without the parser, as the parser would answer it", () => {
      // Addresses drawn from every printable ASCII character, weighted to the shapes that pass the shape check.
      let seed = 7;
      const next = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join("");
      const atext = "abcXYZ019!#$%&'*+-/=?^_`{|}~.";
      const word = () =>
        Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
          const from = next() < 0.9 ? atext : printable;
          return from[Math.floor(next() * from.length)];
        }).join("");
      const inputs = Array.from({ length: 3000 }, () => `${word()}@${word()}${next() < 0.7 ? `.${word()}` : ""}`);
      const seen = countParser();
      let accepted = 0;
      for (const raw of inputs) {
        const parsed = emailAddresses.parseOneAddress({ input: raw, rfc6532: true, rejectTLD: true });
        const parserSays = parsed?.type === "mailbox" && parsed.address === raw && parsed.name === null && !parsed.domain.startsWith("[");
        const answer = parseEmail(raw);
        if (answer !== undefined) accepted++;
        // What parseEmail answered when every address went through the shape check and then the parser.
        expect(answer, raw).toBe(parserSays && hasAddressShape(raw) ? raw : undefined);
      }
      // Many of the inputs are addresses (the comparison above is not vacuous), and parseEmail's own calls were none.
      expect(accepted).toBeGreaterThan(500);
      expect(seen.length).toBe(inputs.length);
    });

    it("without the shape check the parser reads nested comments many times over (the count above can fail)", () => {
      const seen = countParser();
      emailAddresses.parseOneAddress({ input: `a${"(".repeat(150)}${")".repeat(150)}@example.com`, rfc6532: true, rejectTLD: true });
      expect(seen[0]!.reads).toBeGreaterThan(4 * linear(seen[0]!.input));
    });
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

  it('destination keys drop a "+tag" on every domain: a company\'s mail server delivers name+tag to name too', () => {
    const inbox = destinationKey("email", "pat.lee@corp.example");
    for (const spelling of ["pat.lee+1@corp.example", "Pat.Lee+news+x@CORP.example", "pat.lee+@corp.example"])
      expect(destinationKey("email", spelling), spelling).toBe(inbox);
    // The name before the tag still tells inboxes apart; a local part that starts with "+" is kept whole.
    expect(destinationKey("email", "patlee+1@corp.example")).not.toBe(inbox);
    expect(destinationKey("email", "+1@corp.example")).not.toBe(destinationKey("email", "+2@corp.example"));
  });

  it("destination keys read an email's domain as the mailer delivers to it: IDNA-mapped Unicode forms, punycode", () => {
    const inbox = destinationKey("email", "jdoe@gmail.com");
    for (const spelling of [
      "j.doe@ｇｍａｉｌ.com",
      "jdoe@ⓖⓜⓐⓘⓛ.com",
      "jdoe+1@gma\u00adil.com",
      "jd.oe@ＧＭＡＩＬ.ＣＯＭ",
      "jdoe@ｇｏｏｇｌｅｍａｉｌ.com",
    ])
      expect(destinationKey("email", spelling), spelling).toBe(inbox);
    const idn = destinationKey("email", "pat@bücher.example");
    for (const spelling of ["pat@xn--bcher-kva.example", "pat@bu\u0308cher.example", "pat@BÜCHER.example"])
      expect(destinationKey("email", spelling), spelling).toBe(idn);
    // Another domain stays another recipient.
    expect(destinationKey("email", "jdoe@gmai\u0131.com")).not.toBe(inbox);
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
