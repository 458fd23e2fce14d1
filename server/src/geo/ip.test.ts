// What per-IP limits and per-source budgets count (docs/security.md "Per-IP means per /64", "Budgets per source"):
// an IPv4 address or an IPv6 /64 for a client, an IPv4 /24 or an IPv6 /64 for a source's network; detection's
// networkOf stays /24 and /48.
import { describe, expect, it } from "vitest";
import { budgetNetworkOf, networkOf, perIpKey } from "./ip.js";

describe("perIpKey", () => {
  it("an IPv4 address is its own key, written as IPv4 however it came", () => {
    expect(perIpKey("203.0.113.7")).toBe("203.0.113.7");
    expect(perIpKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(perIpKey("203.0.113.8")).not.toBe(perIpKey("203.0.113.7"));
  });

  it("every address of one IPv6 /64 is one key, however written; the next /64 is another", () => {
    const key = perIpKey("2001:db8:1:2::1");
    expect(key).toBe("2001:db8:1:2::/64");
    for (const ip of ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002:abcd::9", "2001:DB8:1:2:0:0:0:0"])
      expect(perIpKey(ip)).toBe(key);
    expect(perIpKey("2001:db8:1:3::1")).not.toBe(key);
  });

  it("a string that is no address is its own key", () => {
    expect(perIpKey("unknown")).toBe("unknown");
  });
});

describe("budgetNetworkOf", () => {
  it("a source's network is the /24 of an IPv4 address and the /64 of an IPv6 one", () => {
    expect(budgetNetworkOf("81.2.69.142")).toBe("81.2.69.0/24");
    expect(budgetNetworkOf("::ffff:81.2.69.7")).toBe("81.2.69.0/24");
    expect(budgetNetworkOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(budgetNetworkOf("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(budgetNetworkOf("2001:0db8:0001:0002::9"));
    expect(budgetNetworkOf("2001:db8:1:3::1")).not.toBe(budgetNetworkOf("2001:db8:1:2::1"));
    for (const bad of [undefined, null, "", "not an ip"]) expect(budgetNetworkOf(bad)).toBeUndefined();
  });
});

describe("networkOf (detection)", () => {
  it("is unchanged: /24 for IPv4, /48 for IPv6", () => {
    expect(networkOf("2001:db8:1:2::1")).toBe("2001:db8:1::/48");
    expect(networkOf("203.0.113.7")).toBe("203.0.113.0/24");
  });
});
