// What the per-source budgets and the per-IP limits count (docs/security.md, "Budgets per source"): an IPv4 /24 or an
// IPv6 /64 for a source's network, an IPv4 address or an IPv6 /64 for a client; detection's networkOf stays /24 and /48.
import { describe, expect, it } from "vitest";
import { budgetNetworkOf, networkOf, perIpKeyOf } from "./ip.js";

describe("networks for budgets", () => {
  it("a source's network is the /24 of an IPv4 address and the /64 of an IPv6 one", () => {
    expect(budgetNetworkOf("81.2.69.142")).toBe("81.2.69.0/24");
    expect(budgetNetworkOf("::ffff:81.2.69.7")).toBe("81.2.69.0/24");
    expect(budgetNetworkOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(budgetNetworkOf("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(budgetNetworkOf("2001:0db8:0001:0002::9"));
    expect(budgetNetworkOf("2001:db8:1:3::1")).not.toBe(budgetNetworkOf("2001:db8:1:2::1"));
    for (const bad of [undefined, null, "", "not an ip"]) expect(budgetNetworkOf(bad)).toBeUndefined();
  });

  it("a client for a per-IP limit is its IPv4 address, or its IPv6 /64", () => {
    expect(perIpKeyOf("81.2.69.142")).toBe("81.2.69.142");
    expect(perIpKeyOf("81.2.69.143")).not.toBe(perIpKeyOf("81.2.69.142"));
    expect(perIpKeyOf("::ffff:81.2.69.142")).toBe("81.2.69.142");
    expect(perIpKeyOf("2001:db8:1:2::1")).toBe(perIpKeyOf("2001:db8:1:2:dead:beef:0:1"));
    expect(perIpKeyOf("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(perIpKeyOf("not an ip")).toBeUndefined();
  });

  it("detection's network is unchanged: /48 for IPv6", () => {
    expect(networkOf("2001:db8:1:2::1")).toBe("2001:db8:1::/48");
    expect(networkOf("81.2.69.142")).toBe("81.2.69.0/24");
  });
});
