// Per-IP keys: IPv4 as itself, IPv6 as its /64, so that one subscriber's prefix is one budget.
import { describe, expect, it } from "vitest";
import { perIpKey } from "./ip.js";

describe("perIpKey", () => {
  it("an IPv4 address is its own key, written as IPv4 however it came", () => {
    expect(perIpKey("203.0.113.9")).toBe("203.0.113.9");
    expect(perIpKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(perIpKey("203.0.113.10")).not.toBe(perIpKey("203.0.113.9"));
  });

  it("every address of one IPv6 /64 shares a key; the next /64 has another", () => {
    expect(perIpKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(perIpKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(perIpKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
  });

  it("a string that is no address keys itself", () => {
    expect(perIpKey("not an address")).toBe("not an address");
  });
});
