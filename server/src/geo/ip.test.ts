// What per-IP limits and per-source budgets count (docs/security.md "Per-IP means per /64", "Budgets per source"):
// an IPv4 address or an IPv6 /64 for a client, an IPv4 /24 or an IPv6 /64 for a source's network; detection's
// networkOf stays /24 and /48.
import ipaddr from "ipaddr.js";
import { describe, expect, it, vi } from "vitest";
import { budgetNetworkOf, networkOf, parseIp, perIpKey } from "./ip.js";

describe("parseIp", () => {
  const FORMS = [
    ...["0.0.0.0", "1.2.3.4", "81.2.69.142", "255.255.255.255", "10.0.0.1", "203.0.113.07", "010.1.1.1", "01.2.3.4"],
    ...["0x7f.0.0.1", "1.2.3", "127.1", "256.1.1.1", "1.2.3.256", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4.5", "1..2.3", "1.2.3.-4"],
    ...["1.2.3.4/24", "", "unknown", "::1", "::ffff:81.2.69.7", "2001:db8::1", "2001:DB8:1:2:0:0:0:0", "fe80::1%eth0"],
    ...["1000.2.3.4", "4294967295", "1.2.3.4\n", "١.٢.٣.٤"],
  ];

  it("reads every form as ipaddr.parse does (IPv4-mapped IPv6 as IPv4), a string that is no address as none", () => {
    for (const ip of FORMS) {
      let expected: string | undefined;
      try {
        const a = ipaddr.parse(ip);
        expected = (a.kind() === "ipv6" && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a).toString();
      } catch {
        expected = undefined;
      }
      expect(parseIp(ip)?.toString(), ip).toBe(expected);
    }
  });

  it("reads an IPv4 address in its usual form without ipaddr.parse (which tries IPv6 first, then reads it twice)", () => {
    const parse = vi.spyOn(ipaddr, "parse");
    try {
      expect(parseIp("81.2.69.142")?.kind()).toBe("ipv4");
      expect(networkOf("81.2.69.142")).toBe("81.2.69.0/24");
      expect(parse).not.toHaveBeenCalled();
      expect(parseIp("010.1.1.1")?.toString()).toBe("8.1.1.1");
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

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
