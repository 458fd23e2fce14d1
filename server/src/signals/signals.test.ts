// The signals behind the checks, on cases easier to build directly than through HTTP (the HTTP table is
// server/test/checks/): time zones across daylight saving, forwarding chains, content patterns, email edges.
import { describe, expect, it } from "vitest";
import type { GeoResult } from "../geo/index.js";
import type { EvaluationInput } from "../pipeline/context.js";
import { automation } from "./automation.js";
import { analyseContent, normaliseText } from "./content.js";
import { checkEmail } from "./email.js";
import { forwarding } from "./forwarding.js";
import { language } from "./language.js";
import { network } from "./network.js";
import { placeZone, timezone, utcOffsetHours, zonesOfCountry } from "./timezone.js";
import type { SignalContext } from "./types.js";

/** A signal context carrying only the request fields a signal reads. */
const ctx = (input: Partial<EvaluationInput>): SignalContext =>
  ({ input: { signals: { components: {} }, headers: {}, at: Date.UTC(2026, 0, 15), ...input } }) as unknown as SignalContext;
const at = (geo: Partial<GeoResult>): GeoResult => ({ ip: "192.0.2.1", tor: false, ...geo });
const JANUARY = Date.UTC(2026, 0, 15);
const JULY = Date.UTC(2026, 6, 15);

describe("time zone against the IP's longitude", () => {
  it("reads a zone's UTC offset with daylight saving, and nothing for an unknown zone", () => {
    expect(utcOffsetHours("Europe/Paris", JANUARY)).toBe(1);
    expect(utcOffsetHours("Europe/Paris", JULY)).toBe(2);
    expect(utcOffsetHours("Asia/Kolkata", JULY)).toBe(5.5);
    expect(utcOffsetHours("UTC", JULY)).toBe(0);
    expect(utcOffsetHours("Not/AZone", JULY)).toBeUndefined();
  });

  it("follows a transition to the minute, though offsets are remembered per minute", () => {
    const spring = Date.UTC(2026, 2, 29, 1); // Paris goes to summer time at 01:00 UTC
    expect(utcOffsetHours("Europe/Paris", spring - 1)).toBe(1);
    expect(utcOffsetHours("Europe/Paris", spring)).toBe(2);
    expect(utcOffsetHours("Europe/Paris", spring - 60_001)).toBe(1);
    const casey = Date.UTC(2022, 9, 1, 16, 1); // a transition off the quarter hour: 16:01 UTC
    expect(utcOffsetHours("Antarctica/Casey", casey - 1)).toBe(8);
    expect(utcOffsetHours("Antarctica/Casey", casey)).toBe(11);
  });

  it("a browser far from its IP mismatches; a neighbour, summer time or the date line do not", () => {
    const paris = (when: number, geo: Partial<GeoResult>) =>
      timezone(ctx({ signals: { components: {}, timezone: "Europe/Paris" }, at: when }), at(geo));
    expect(paris(JANUARY, { longitude: 139.76 }).mismatch).toBe(true); // Tokyo
    expect(paris(JANUARY, { longitude: -0.09 }).mismatch).toBe(false); // London
    expect(paris(JULY, { longitude: -9.14 }).mismatch).toBe(false); // Lisbon in summer: 2 h vs -0.6 h
    const auckland = timezone(ctx({ signals: { components: {}, timezone: "Pacific/Auckland" }, at: JULY }), at({ longitude: -176 }));
    expect(auckland.mismatch).toBe(false); // across the date line: 12 h vs -11.7 h is 0.3 h apart
  });

  it("no zone, an unknown zone or no coordinates is never a mismatch", () => {
    expect(timezone(ctx({}), at({ longitude: 139.76 })).mismatch).toBe(false);
    expect(timezone(ctx({ signals: { components: {}, timezone: "Not/AZone" } }), at({ longitude: 139.76 })).mismatch).toBe(false);
    expect(timezone(ctx({ signals: { components: {}, timezone: "Europe/Paris" } }), undefined).mismatch).toBe(false);
  });

  it("names a zone by its canonical name when it is a place; UTC, Etc/ offsets and unknown names are none", () => {
    expect(placeZone("Asia/Kolkata")).toBe(placeZone("Asia/Calcutta"));
    expect(placeZone("Europe/London")).toBe("Europe/London");
    for (const none of ["UTC", "Etc/UTC", "GMT", "Etc/GMT-3", "Universal", "Not/AZone"]) expect(placeZone(none), none).toBeUndefined();
    const paris = timezone(ctx({ signals: { components: {}, timezone: "Europe/Paris" } }), undefined);
    expect(paris).toMatchObject({ browser: "Europe/Paris", zone: "Europe/Paris" });
    expect(timezone(ctx({ signals: { components: {}, timezone: "UTC" } }), undefined).zone).toBeUndefined();
  });

  it("knows each country's zones from Intl's CLDR data, under the names placeZone gives", () => {
    expect(zonesOfCountry("US").has("America/New_York")).toBe(true);
    expect(zonesOfCountry("US").has("America/Los_Angeles")).toBe(true);
    expect(zonesOfCountry("JP")).toEqual(new Set(["Asia/Tokyo"]));
    expect(zonesOfCountry("IN").has(placeZone("Asia/Kolkata") as string)).toBe(true);
    expect(zonesOfCountry("GB").has("Europe/Paris")).toBe(false);
    for (const none of ["ZZ", "usa", "", "U1"]) expect(zonesOfCountry(none).size, none).toBe(0);
    const local = (zone: string, country_code: string) =>
      timezone(ctx({ signals: { components: {}, timezone: zone } }), at({ country_code, longitude: 0 })).local;
    expect(local("Asia/Kolkata", "IN")).toBe(true);
    expect(local("Asia/Seoul", "JP")).toBe(false);
    expect(local("Etc/UTC", "GB")).toBeUndefined();
    expect(timezone(ctx({ signals: { components: {}, timezone: "Asia/Tokyo" } }), undefined).local).toBeUndefined();
  });

  it("falls back on the components' time zone when the SDK sends none", () => {
    const c = ctx({ signals: { components: { timezone: { value: "America/New_York" } } } });
    expect(timezone(c, at({ longitude: 139.76 }))).toMatchObject({ browser: "America/New_York", mismatch: true });
  });
});

describe("language", () => {
  const of = (value: unknown) => language(ctx({ signals: { components: { languages: { value } } } } as Partial<EvaluationInput>));

  it("is navigator.language, the first entry of FingerprintJS's component, canonical", () => {
    expect(of([["en-GB"], ["en-GB", "en"]])).toBe("en-GB");
    expect(of([["EN-gb"]])).toBe("en-GB");
    expect(of([["zh-hant-tw"], ["zh-Hant-TW", "zh"]])).toBe("zh-Hant-TW");
    expect(of([["fr"]])).toBe("fr");
  });

  it("is nothing for what no browser reports: no component, another shape, not a tag, an overlong one", () => {
    expect(language(ctx({}))).toBeUndefined();
    expect(of("en-GB")).toBeUndefined();
    expect(of([[]])).toBeUndefined();
    expect(of([[42]])).toBeUndefined();
    expect(of([["<script>"]])).toBeUndefined();
    expect(of([["en-GB-oxendict-x-private-use-subtags"]])).toBeUndefined();
    expect(of([[`en-${"a".repeat(200)}`]])).toBeUndefined();
  });
});

describe("forwarding headers", () => {
  it("a header only forward-proxy software adds means a proxy in front of the client", () => {
    expect(forwarding(ctx({ headers: { "x-proxy-id": "abc" } })).proxied).toBe(true);
    expect(forwarding(ctx({ headers: { "proxy-connection": "keep-alive" } })).proxied).toBe(true);
    expect(forwarding(ctx({ headers: { "x-bluecoat-via": "5a1b" } })).proxied).toBe(true);
  });

  it("Via and forwarding chains are the operator's own edge, not a proxy (load balancers add them to all traffic)", () => {
    expect(forwarding(ctx({ headers: {} })).proxied).toBe(false);
    expect(forwarding(ctx({ headers: { via: "1.1 google" } })).proxied).toBe(false);
    expect(forwarding(ctx({ headers: { via: "1.1 vegur" } })).proxied).toBe(false);
    expect(forwarding(ctx({ headers: { "x-forwarded-for": "198.51.100.1, 198.51.100.2, 198.51.100.3" } })).proxied).toBe(false);
    expect(forwarding(ctx({ headers: { forwarded: "for=198.51.100.1;proto=https, for=198.51.100.2" } })).proxied).toBe(false);
  });
});

describe("network", () => {
  it("is the address's /24, with the ASN of networks that belong to their users (a carrier, an ISP)", () => {
    expect(network(ctx({ ip: "172.56.1.1" }), at({ asn: 21928, network: "mobile" }))).toEqual({ prefix: "172.56.1.0/24", asn: 21928 });
    expect(network(ctx({ ip: "81.2.69.142" }), at({ asn: 20712 }))).toEqual({ prefix: "81.2.69.0/24", asn: 20712 });
  });

  it("drops the ASN that strangers share: clouds, VPN and proxy providers, Tor", () => {
    for (const kind of ["hosting", "vpn", "proxy", "tor"] as const)
      expect(network(ctx({ ip: "3.5.1.1" }), at({ asn: 16509, network: kind })), kind).toEqual({ prefix: "3.5.1.0/24" });
    expect(network(ctx({ ip: "185.220.101.7" }), at({ asn: 1, tor: true }))).toEqual({ prefix: "185.220.101.0/24" });
  });

  it("is nothing without an IP", () => {
    expect(network(ctx({}), undefined)).toBeUndefined();
  });
});

describe("automation markers", () => {
  it("collects webdriver, headless, a bot kind and free markers; nothing reported is no automation", () => {
    const a = automation(
      ctx({ signals: { components: {}, automation: { webdriver: true, bot: true, bot_kind: "selenium", markers: ["cdp"] } } }),
    );
    expect(a).toEqual({ detected: true, markers: ["bot:selenium", "cdp", "webdriver"] });
    expect(automation(ctx({ signals: { components: {}, automation: { webdriver: false, headless: false } } })).detected).toBe(false);
    expect(automation(ctx({})).detected).toBe(false);
  });
});

describe("content analysis", () => {
  it("counts links in the text and the links given apart", () => {
    expect(analyseContent({ text: "see https://a.example/x, www.b.example and shop.xyz", links: ["https://c.example"] }).linkCount).toBe(4);
    expect(analyseContent({ text: "version 2.0 is out. Fine." }).linkCount).toBe(0);
  });

  it("finds contact details: an email, a phone number, a messenger handle", () => {
    expect(analyseContent({ text: "mail me: a@b.co" }).hasContactInfo).toBe(true);
    expect(analyseContent({ text: "ring 06 12 34 56 78" }).hasContactInfo).toBe(true);
    expect(analyseContent({ text: "ping me on Telegram" }).hasContactInfo).toBe(true);
    expect(analyseContent({ text: "I paid 12 euros for 3 items" }).hasContactInfo).toBe(false);
  });

  it("scores spam vocabulary, shouting and exclamation marks, capped at 100", () => {
    expect(analyseContent({ text: "A lovely walk by the river today." }).spamScore).toBe(0);
    expect(analyseContent({ text: "cheap watches" }).spamScore).toBe(25);
    expect(analyseContent({ text: "THIS IS THE LOUDEST COMMENT EVER WRITTEN" }).spamScore).toBe(15);
    expect(analyseContent({ text: "wow!!!!!" }).spamScore).toBe(10);
    const all = "BUY NOW CHEAP CASINO, EARN $500, MAKE MONEY, WIRE TRANSFER, KILL YOURSELF!!!!!";
    expect(analyseContent({ text: all }).spamScore).toBe(100);
  });

  it("hashes the normalised text, so case, spacing and punctuation do not hide a repeat", () => {
    expect(normaliseText("  Hello,   WORLD! ")).toBe("hello world");
    expect(analyseContent({ text: "Hello, world!" }).hash).toBe(analyseContent({ text: "hello   world" }).hash);
    expect(analyseContent({ text: "Hello, world!" }).hash).not.toBe(analyseContent({ text: "Hello, there!" }).hash);
  });
});

describe("email", () => {
  it("disposable domains and their subdomains; webmail; neither for a company", () => {
    expect(checkEmail("x@mailinator.com")).toMatchObject({ disposable: true, webmail: false, invalid: false });
    expect(checkEmail("x@eu.mailinator.com").disposable).toBe(true);
    expect(checkEmail("x@GMAIL.com")).toMatchObject({ disposable: false, webmail: true, domain: "gmail.com", address: "x@gmail.com" });
    expect(checkEmail("x@acme-corp.com")).toMatchObject({ disposable: false, webmail: false });
  });

  it("invalid syntax: no @, no dotted domain, dots at the edges of the local part, spaces", () => {
    for (const bad of ["plain", "a@localhost", ".a@example.com", "a.@example.com", "a..b@example.com", "a b@example.com", "a@-x.com"])
      expect(checkEmail(bad).invalid, bad).toBe(true);
    for (const good of ["a.b+tag@example.co.uk", "o'brien@example.ie", "  padded@example.com  "])
      expect(checkEmail(good).invalid, good).toBe(false);
  });
});
