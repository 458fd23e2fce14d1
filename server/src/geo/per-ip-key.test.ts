// The key of per-IP limits (ip.ts perIpKey): an IPv4 address is itself, an IPv6 address is its /64.
import { describe, expect, it } from "vitest";
import { networkOf, perIpKey } from "./ip.js";

describe("perIpKey", () => {
  it("an IPv4 address is its own key, written plainly", () => {
    expect(perIpKey("203.0.113.7")).toBe("203.0.113.7");
    expect(perIpKey("203.0.113.8")).not.toBe(perIpKey("203.0.113.7"));
  });

  it("every address of one IPv6 /64 is one key, however written", () => {
    const key = perIpKey("2001:db8:1:2::1");
    expect(key).toBe("2001:db8:1:2::/64");
    for (const ip of ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002:abcd::9", "2001:DB8:1:2:0:0:0:0"])
      expect(perIpKey(ip)).toBe(key);
  });

  it("the next /64 is another key", () => {
    expect(perIpKey("2001:db8:1:3::1")).not.toBe(perIpKey("2001:db8:1:2::1"));
  });

  it("an IPv4-mapped IPv6 address counts as the IPv4 address it carries", () => {
    expect(perIpKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("a string that is no address is its own key", () => {
    expect(perIpKey("unknown")).toBe("unknown");
  });

  it("does not change what detection calls a network (/24, /48)", () => {
    expect(networkOf("2001:db8:1:2::1")).toBe("2001:db8:1::/48");
    expect(networkOf("203.0.113.7")).toBe("203.0.113.0/24");
  });
});
